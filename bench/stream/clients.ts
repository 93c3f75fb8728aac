/**
 * A raw SSE client cheap enough to hold 10,000 streams in the benchmark process: one plain TCP
 * socket per stream, an HTTP/1.0 request (so the answer is not chunk-encoded and the body is the
 * bare event stream), and a parser that keeps only `id:` and `event:` lines. Data lines are
 * skipped without being copied, so a stream costs a socket and a few fields, not an EventSource.
 */
import { connect, type Socket } from 'node:net';

/** When a complete event arrived (ms since the epoch, sub-millisecond) with its SSE id. */
export interface Arrivals {
  /** Parallel arrays: one entry per event received while recording. */
  ids: number[];
  atMs: number[];
  /** Which stream each event came on (index into the opened paths). */
  stream: number[];
}

export interface StreamStats {
  events: number;
  bytes: number;
}

export interface ClientGroup {
  /** Per stream: events and body bytes received while recording. */
  stats: StreamStats[];
  arrivals: Arrivals;
  /** Streams that ended, failed or were refused, each counted once (with the first reason seen). */
  failures: number;
  firstFailure: string | undefined;
  /** When it happened (ms since the epoch, as `nowMs`). */
  firstFailureAtMs: number | undefined;
  /** Streams whose HTTP head said 200. */
  opened: number;
  /**
   * Events whose id was not above the last id of their stream, recording or not: an event sent
   * twice (or out of order). Ids of a stream only grow, so each id is seen once per subscriber.
   */
  repeats: number;
  firstRepeat: string | undefined;
  /** Per stream: the last id received (-1 before any), recording or not. */
  lastIds: number[];
  /** Streams that ended, failed or were refused. */
  failedStreams: Set<number>;
  /** Start (or stop) counting events and bytes and keeping arrival times. */
  record(on: boolean): void;
  close(): void;
}

export const nowMs = (): number => performance.timeOrigin + performance.now();

/** `id: ` plus a long sequence fits; anything longer is a data line and is not looked at. */
const HEAD_CHARS = 96;

/**
 * Opens one stream per path against host:port, at most `parallel` connection attempts at a time
 * (10,000 simultaneous SYNs overflow the server's accept backlog and cost seconds of SYN retries,
 * which would be measured as the server's opening time). Resolves once every stream has its head.
 */
export async function openStreams(
  target: { host: string; port: number },
  paths: readonly string[],
  parallel = 200,
  /** Record from the first byte (streams that replay from a resume point), not from `record(true)`. */
  recordFromStart = false,
): Promise<ClientGroup> {
  let recording = recordFromStart;
  const sockets: Socket[] = [];
  const group: ClientGroup = {
    stats: paths.map(() => ({ events: 0, bytes: 0 })),
    arrivals: { ids: [], atMs: [], stream: [] },
    failures: 0,
    firstFailure: undefined,
    firstFailureAtMs: undefined,
    opened: 0,
    repeats: 0,
    firstRepeat: undefined,
    lastIds: paths.map(() => -1),
    failedStreams: new Set(),
    record: (on) => {
      recording = on;
    },
    close: () => {
      for (const s of sockets) s.destroy();
    },
  };
  const fail = (index: number, reason: string) => {
    if (group.failedStreams.has(index)) return;
    group.failedStreams.add(index);
    group.failures += 1;
    group.firstFailure ??= reason;
    group.firstFailureAtMs ??= nowMs();
  };

  const openOne = (index: number) =>
    new Promise<void>((resolve) => {
      const socket = connect(target.port, target.host);
      sockets.push(socket);
      let head: string | undefined = '';
      const parser = createParser((id) => {
        const lastId = group.lastIds[index]!;
        if (id <= lastId) {
          group.repeats += 1;
          group.firstRepeat ??= `stream ${index}: id ${id} after ${lastId}`;
        }
        group.lastIds[index] = Math.max(lastId, id);
        if (!recording) return;
        group.stats[index]!.events += 1;
        group.arrivals.ids.push(id);
        group.arrivals.atMs.push(nowMs());
        group.arrivals.stream.push(index);
      });
      socket.on('connect', () => {
        socket.write(
          `GET ${paths[index]} HTTP/1.0\r\nHost: ${target.host}\r\nAccept: text/event-stream\r\n\r\n`,
        );
      });
      socket.on('data', (chunk: Buffer) => {
        let body = chunk;
        if (head !== undefined) {
          head += chunk.toString('latin1');
          const end = head.indexOf('\r\n\r\n');
          if (end === -1) return;
          const status = head.slice(0, head.indexOf('\r\n'));
          if (!/^HTTP\/1\.[01] 200/.test(status)) fail(index, `${status}: ${head.slice(end + 4, end + 300)}`);
          else group.opened += 1;
          body = Buffer.from(head.slice(end + 4), 'latin1');
          head = undefined;
          resolve();
        }
        if (recording) group.stats[index]!.bytes += body.length;
        const error = parser(body);
        if (error !== undefined) fail(index, `stream ${index}: error event ${error}`);
      });
      const ended = (reason: string) => () => {
        if (head !== undefined) resolve();
        fail(index, `stream ${index}: ${reason}`);
      };
      socket.on('error', (err) => ended(err.message)());
      socket.on('end', ended('closed by the server'));
    });

  let next = 0;
  const worker = async () => {
    while (next < paths.length) await openOne(next++);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, paths.length) }, worker));
  return group;
}

/**
 * An incremental SSE parser: calls `onEvent` with the id once an event's closing blank line is
 * in; returns the start of the first `event: error` frame's data if one went by.
 */
function createParser(onEvent: (id: number) => void): (chunk: Buffer) => string | undefined {
  let lineStart = '';
  let errorData = '';
  let lineBytes = 0;
  let id: number | undefined;
  let isError = false;
  const endLine = (): string | undefined => {
    if (lineBytes === 0) {
      const errored = isError;
      if (id !== undefined && !errored) onEvent(id);
      id = undefined;
      isError = false;
      return errored ? errorData : undefined;
    }
    if (isError && lineStart.startsWith('data: ')) errorData = lineStart.slice(6);
    if (lineStart.startsWith('id: ')) id = Number(lineStart.slice(4));
    else if (lineStart.startsWith('event: error')) isError = true;
    return undefined;
  };
  return (chunk) => {
    let pos = 0;
    let error: string | undefined;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(10, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (lineStart.length < HEAD_CHARS && end > pos) {
        lineStart += chunk.toString('latin1', pos, Math.min(end, pos + HEAD_CHARS - lineStart.length));
      }
      lineBytes += end - pos;
      if (nl === -1) break;
      error ??= endLine();
      lineStart = '';
      lineBytes = 0;
      pos = nl + 1;
    }
    return error;
  };
}
