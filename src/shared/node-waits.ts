import { AppError, errorMessage } from './errors.js';

/**
 * One part of ingest waiting for the node (docs/api.md §4.1.1, docs/ingest.md §10): what it waits
 * to do, on which surface, since when, how many attempts failed and the last error.
 */
export interface NodeWait {
  /** The part: `block stream`, `internal_tx stage`, `rich_list stage`, `start-up`. */
  part: string;
  /** The node surface the last failure came from (`rpc`, `rest`, `jsonrpc`), or `node` when unsaid. */
  on: string;
  /** What the part is trying to do, e.g. `block stream: heights 1234-1253`. */
  what: string;
  since: Date;
  attempts: number;
  lastError: string;
}

/** One retried operation's entry: told of each failure, then that it is over. */
export interface WaitEntry {
  failed(err: unknown): void;
  done(): void;
}

/**
 * The board of who waits for the node, shared by every part of one ingest process and read by its
 * API (`/status`, `/health`, `/ready`, `/metrics`). Several operations of one part may wait at once
 * (a window of chunks, a batch of traces): the part shows the one that started first.
 */
export interface NodeWaits {
  /** An entry for one operation of `part` doing `what`; it shows only once it has failed. */
  entry(part: string, what: string): WaitEntry;
  /** One wait per waiting part, the longest waiting first; empty when nothing waits. */
  list(): NodeWait[];
}

export function createNodeWaits(): NodeWaits {
  /** Failing operations, each with the order it started in. */
  const open = new Map<NodeWait, number>();
  let operations = 0;
  return {
    entry(part, what) {
      let wait: NodeWait | undefined;
      const order = operations++;
      return {
        failed(err) {
          wait ??= {
            part,
            what: `${part}: ${what}`,
            on: 'node',
            since: new Date(),
            attempts: 0,
            lastError: '',
          };
          wait.attempts++;
          wait.on = surfaceOf(err);
          wait.lastError = errorMessage(err);
          open.set(wait, order);
        },
        done() {
          if (wait) open.delete(wait);
        },
      };
    },
    list() {
      // Per part, the operation that started first (the block stream's lowest chunk: the one that
      // holds progress back), waiting since the part's first failure.
      const first = new Map<string, { wait: NodeWait; order: number; since: Date }>();
      for (const [wait, order] of open) {
        const seen = first.get(wait.part);
        const since = seen ? minDate(seen.since, wait.since) : wait.since;
        first.set(wait.part, !seen || order < seen.order ? { wait, order, since } : { ...seen, since });
      }
      return [...first.values()]
        .map(({ wait, since }) => ({ ...wait, since }))
        .sort((a, b) => a.since.getTime() - b.since.getTime());
    },
  };
}

const minDate = (a: Date, b: Date) => (a < b ? a : b);

/** The served form of the waits (docs/api.md §4.1.1): snake_case, times as ISO text. */
export function servedWaits(waits: readonly NodeWait[]) {
  return waits.map((w) => ({
    on: w.on,
    what: w.what,
    since: w.since.toISOString(),
    attempts: w.attempts,
    last_error: w.lastError,
  }));
}

/** The surface a failure came from: the transport marks its errors; wrappers keep it as a cause. */
function surfaceOf(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const surface = e instanceof AppError ? e.details.surface : undefined;
    if (typeof surface === 'string') return surface;
  }
  return 'node';
}
