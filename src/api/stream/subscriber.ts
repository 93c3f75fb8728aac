import type { ServerResponse } from 'node:http';
import type { BlockRow } from '../../store/readers/blocks.js';
import type { SequencedRow } from '../../store/readers/stream.js';
import { renderBlock } from '../render.js';

/** What a subscriber asked for, resolved against the dictionaries as ids appear. */
export interface StreamFilter {
  /** Lower-case hex of the account's bytes. */
  accountHex?: string;
  signerOnly: boolean;
  /** Message type names (no leading '/'); any of them matches. */
  msgNames?: ReadonlySet<string>;
}

/** One committed item in the form a stream sends it. */
export interface StreamEvent {
  /** Height (blocks) or sequence (txs): the SSE id a client resumes from. */
  id: number;
  height: number;
  data: string;
  /**
   * The encoded SSE frame, made by the first subscriber that sends the event and shared by the
   * others (the event name is the route's): one encoding per event, not one per subscriber.
   */
  frame?: Buffer;
}

/** Stream events of stored blocks: id = height, data = the block JSON of the REST routes. */
export const blockEvents = (rows: readonly BlockRow[], chainId: string): StreamEvent[] =>
  rows.map((row) => ({ id: row.height, height: row.height, data: renderBlock(row, chainId) }));

/** Stream events of stored txs: id = sequence, data = the stored tx JSON. */
export const txEvents = (rows: readonly SequencedRow[]): StreamEvent[] =>
  rows.map((r) => ({ id: r.sequence, height: r.height, data: r.data }));

export interface SubscriberLimits {
  /** Bytes waiting in the socket past which the subscriber is too slow and is closed. */
  maxBufferBytes: number;
}

/**
 * One open SSE connection. Live events are written at once; while the stored backlog is being
 * replayed they wait in a queue of the same byte bound; when a long replay overflows that queue,
 * the queue is dropped and the caller replays again from the database (`replay` answers
 * 'behind'), so a reader that keeps up is never closed for the server's own backlog. Ids at or
 * below `lastId` are never sent again, so replay and live can overlap without a duplicate.
 */
export interface Subscriber {
  readonly eventName: string;
  readonly filter: StreamFilter;
  /** The last id this client has (sent, or named by its resume point). */
  lastId: number;
  /** `from_height`: nothing below it is sent. */
  readonly minHeight: number;
  readonly closed: boolean;
  /** Writes a live event (or queues it during replay); true when written now. */
  send(event: StreamEvent): boolean;
  /** Writes the backlog in order, waiting for the socket to drain, then goes live. */
  replay(chunks: AsyncIterable<readonly StreamEvent[]>): Promise<'live' | 'behind'>;
  /** After 'behind': queue live events again (called where the hub's position is read). */
  queueAgain(): void;
  /** Closes the subscriber as slow when more than its bound still waits in its socket. */
  checkKeepingUp(): void;
  heartbeat(): void;
  /** Ends the stream with a last `error` event (slow consumer, shutdown). */
  closeWith(code: number, message: string): void;
  /** Drops a subscriber whose stream never opened (the answer is an error instead). */
  abandon(): void;
  onClose(listener: () => void): void;
}

export function createSubscriber(
  res: ServerResponse,
  init: {
    eventName: string;
    filter: StreamFilter;
    lastId: number;
    minHeight: number;
    limits: SubscriberLimits;
    onSlow: () => void;
  },
): Subscriber {
  let pending: StreamEvent[] | undefined = [];
  let pendingBytes = 0;
  // The queue overflowed during a replay: live events are dropped until the caller replays again.
  let behind = false;
  let flushedAtLastCheck = -1;
  let closed = false;
  const closeListeners: (() => void)[] = [];
  res.on('close', () => {
    if (closed) return;
    closed = true;
    for (const l of closeListeners) l();
  });

  const frame = (e: StreamEvent) =>
    (e.frame ??= Buffer.from(`id: ${e.id}\nevent: ${init.eventName}\ndata: ${e.data}\n\n`));
  const sub: Subscriber = {
    eventName: init.eventName,
    filter: init.filter,
    lastId: init.lastId,
    minHeight: init.minHeight,
    get closed() {
      return closed;
    },
    send(event) {
      if (closed) return false;
      // While the backlog is planned and replayed, everything live waits; ids are checked on flush.
      if (pending !== undefined) {
        if (behind) return false;
        pending.push(event);
        pendingBytes += event.data.length;
        if (pendingBytes > init.limits.maxBufferBytes) {
          behind = true;
          pending = [];
          pendingBytes = 0;
        }
        return false;
      }
      if (event.id <= sub.lastId || event.height < sub.minHeight) return false;
      res.write(frame(event));
      sub.lastId = event.id;
      return true;
    },
    checkKeepingUp() {
      if (closed) return;
      // Live: measured before a chunk is sent, so one chunk written in one go never counts against
      // a reader: what is still queued then is what it did not take since the last chunk.
      if (pending === undefined) {
        if (res.writableLength > init.limits.maxBufferBytes) slow();
        return;
      }
      // Replaying (written with back-pressure): live events already outgrew the queue and the
      // socket took nothing since the last chunk, so the reader is not reading.
      const flushed = res.socket?.bytesWritten ?? 0;
      if (behind && flushed === flushedAtLastCheck) slow();
      flushedAtLastCheck = flushed;
    },
    async replay(chunks) {
      for await (const events of chunks) {
        for (const event of events) {
          if (closed) return 'live';
          if (event.id <= sub.lastId || event.height < sub.minHeight) continue;
          sub.lastId = event.id;
          if (!res.write(frame(event))) await drained(res);
        }
      }
      if (behind) return 'behind';
      const queued = pending ?? [];
      pending = undefined;
      for (const event of queued) sub.send(event);
      return 'live';
    },
    queueAgain() {
      behind = false;
      pending = [];
      pendingBytes = 0;
    },
    heartbeat() {
      // Not before the route has written the stream's head (the subscriber is registered first).
      if (!closed && res.headersSent) res.write(': keep-alive\n\n');
    },
    closeWith(code, message) {
      if (closed) return;
      if (res.headersSent) res.end(`event: error\ndata: ${JSON.stringify({ code, message })}\n\n`);
      else res.destroy();
      closed = true;
      for (const l of closeListeners) l();
    },
    abandon() {
      if (closed) return;
      closed = true;
      for (const l of closeListeners) l();
    },
    onClose(listener) {
      closeListeners.push(listener);
    },
  };
  const slow = () => {
    init.onSlow();
    sub.closeWith(14, 'slow consumer: resume with Last-Event-ID');
  };
  return sub;
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
