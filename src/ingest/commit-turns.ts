import { CAUGHT_UP_BLOCKS } from '../shared/chain-condition.js';

/**
 * The order of a deployment's commits (docs/chains.md §9): every chain commits on the one main
 * thread and into the same PostgreSQL server, so a chain catching up from far behind (its node back
 * after an outage), committing dozens of blocks at a time, makes the chains at their heads wait.
 * A chain more than CAUGHT_UP_BLOCKS behind its node lets the commits of chains at their heads go
 * first: it starts its own only once none of theirs is in flight, and once the thread has had a
 * turn for whatever else is ready (a block of a chain at its head landing). It never waits longer
 * than `maxWaitMs` per commit, so it still catches up when the others commit without pause.
 */
export interface CommitTurns {
  /**
   * Waits for a chain's turn to commit a batch that leaves it `behind` blocks behind its node;
   * the returned function ends the commit.
   */
  take(behind: number): Promise<() => void>;
}

/** The longest a catching-up chain's commit waits for the chains at their heads. */
export const CATCH_UP_MAX_WAIT_MS = 250;

export function createCommitTurns(maxWaitMs = CATCH_UP_MAX_WAIT_MS): CommitTurns {
  let atHeadsWriting = 0;
  let waiters: Array<() => void> = [];
  const wakeAll = () => {
    const woken = waiters;
    waiters = [];
    woken.forEach((wake) => wake());
  };
  /** Resolves once no commit of a chain at its head is in flight, or at `deadline`. */
  const untilClear = (deadline: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      function done() {
        clearTimeout(timer);
        waiters = waiters.filter((w) => w !== done);
        resolve();
      }
      waiters.push(done);
    });
  /** One turn of the event loop: I/O that is ready (a block landing) runs before. */
  const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    async take(behind) {
      if (behind <= CAUGHT_UP_BLOCKS) {
        atHeadsWriting++;
        let ended = false;
        return () => {
          if (ended) return;
          ended = true;
          if (--atHeadsWriting === 0) wakeAll();
        };
      }
      const deadline = Date.now() + maxWaitMs;
      do {
        if (atHeadsWriting > 0) await untilClear(deadline);
        await yieldTurn();
      } while (atHeadsWriting > 0 && Date.now() < deadline);
      return () => undefined;
    },
  };
}
