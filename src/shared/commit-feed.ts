/**
 * How API processes learn that the indexer committed (docs/stream.md §4). A feed only wakes its
 * listener; the listener then reads the committed checkpoint itself, so a lost or coalesced
 * wake-up never loses data, it only delays it until the next one.
 */
export interface CommitFeed {
  /** Starts calling `wake` when something may have been committed. */
  start(wake: () => void): void;
  close(): Promise<void>;
}

/**
 * The PostgreSQL NOTIFY channel: the block writer notifies inside its commit transaction (so only
 * a committed batch is announced) and API processes LISTEN on the primary.
 */
export const COMMIT_CHANNEL = 'rollup_indexer_commit';

/** In-process (`start`): the ingest pipeline calls `committed()` after each commit. */
export function createInProcessFeed(): CommitFeed & { committed(): void } {
  let listener: (() => void) | undefined;
  return {
    start(wake) {
      listener = wake;
    },
    committed() {
      listener?.();
    },
    async close() {
      listener = undefined;
    },
  };
}

/**
 * A short poll (a replica: NOTIFY does not reach standbys, so the replica's own replayed
 * checkpoint is followed; one primary-key read per interval).
 */
export function createPollFeed(intervalMs: number): CommitFeed {
  let timer: NodeJS.Timeout | undefined;
  return {
    start(wake) {
      timer = setInterval(wake, intervalMs);
      timer.unref();
    },
    async close() {
      clearInterval(timer);
    },
  };
}
