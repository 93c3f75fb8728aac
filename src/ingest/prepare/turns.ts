/**
 * Turns of the event loop of a thread that prepares blocks for several chains (docs/chains.md §7).
 * Preparing a chunk's blocks is synchronous CPU work; a chunk of 20 started at once held the
 * thread's loop for up to ~200 ms, and a chain at its head whose one-block chunk shared the thread
 * waited that long for its node's answer to be read and its block to be prepared (in the main
 * thread, with `PREPARE_WORKERS=0`, every chain's commits and the API's answers waited too). Here
 * each block is a step, and the waiting step of the smallest chunk goes first: a chain at its head
 * (chunks of a block or two) passes a chain catching up (chunks of 20), which uses the time left
 * over. While the thread prepares for more than one chain, steps run back to back for at most
 * TURN_MS before the loop gets a turn (I/O: node answers, the pool's messages); a thread of one
 * chain has no one to give way to and runs its steps without a limit.
 */
export interface Turns {
  /** Runs `step` in a coming turn, after the waiting steps of chunks of `size` heights or fewer. */
  take<T>(size: number, step: () => T): Promise<Awaited<T>>;
  /** A chain's preparer starts using the thread; the returned function says it stopped. */
  join(): () => void;
}

/**
 * How long steps run back to back before the loop gets a turn, with two chains or more. A turn
 * after every block kept a head chain's wait shortest but cost a backfill 10-15 % more CPU per
 * block; 5 ms turns cost ~5 % (docs/benchmarks.md), which is why a single chain's thread has none.
 */
export const TURN_MS = 5;

interface Waiting {
  size: number;
  run: () => void;
}

export function createTurns(): Turns {
  // Ordered by size, first come first served within a size (at most a few windows of blocks).
  const waiting: Waiting[] = [];
  let scheduled = false;
  let chains = 0;
  const next = () => {
    scheduled = false;
    const limit = chains > 1 ? TURN_MS : Number.POSITIVE_INFINITY;
    const started = performance.now();
    do waiting.shift()?.run();
    while (waiting.length > 0 && performance.now() - started < limit);
    if (waiting.length > 0) schedule();
  };
  // setImmediate: the loop polls I/O (node answers, the pool's messages) before the next step.
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(next);
  };
  return {
    take(size, step) {
      return new Promise((resolve, reject) => {
        const run = () => {
          try {
            resolve(step() as Awaited<ReturnType<typeof step>>);
          } catch (err) {
            reject(err);
          }
        };
        const at = waiting.findIndex((w) => w.size > size);
        waiting.splice(at < 0 ? waiting.length : at, 0, { size, run });
        schedule();
      });
    },
    join() {
      chains++;
      let joined = true;
      return () => {
        if (joined) chains--;
        joined = false;
      };
    },
  };
}

let ofThisThread: Turns | undefined;

/**
 * The turns of the calling thread, shared by every preparer in it: a prepare thread's chains, or
 * with `PREPARE_WORKERS=0` the main thread's. Module state is per thread (each worker has its own).
 */
export function threadTurns(): Turns {
  return (ofThisThread ??= createTurns());
}
