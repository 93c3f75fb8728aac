/**
 * Turns of a prepare thread's event loop (docs/chains.md §7). Preparing a chunk's blocks is
 * synchronous CPU work; a chunk of 20 started at once held the thread's loop for up to ~200 ms,
 * and a chain at its head whose one-block chunk shared the thread waited that long for its node's
 * answer to be read and its block to be prepared. Here each block is a step, steps run back to
 * back for at most TURN_MS before the loop gets a turn (I/O: node answers, the pool's messages),
 * and the waiting step of the smallest chunk goes first: a chain at its head (chunks of a block or
 * two) passes a chain catching up (chunks of 20), which uses the time left over.
 */
export interface Turns {
  /** Runs `step` in a coming turn, after the waiting steps of chunks of `size` heights or fewer. */
  take<T>(size: number, step: () => T): Promise<Awaited<T>>;
}

/**
 * How long steps run back to back before the loop gets a turn. A turn after every block kept a
 * head chain's wait shortest but cost a single chain's backfill 10-15 % more CPU per block; 5 ms
 * costs nothing measurable (docs/benchmarks.md).
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
  const next = () => {
    scheduled = false;
    const started = performance.now();
    do waiting.shift()?.run();
    while (waiting.length > 0 && performance.now() - started < TURN_MS);
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
  };
}

/** No turns: each step runs at once (a preparer in the main thread, `PREPARE_WORKERS=0`). */
export const NO_TURNS: Turns = {
  take: <T>(_size: number, step: () => T) => Promise.resolve(step()) as Promise<Awaited<T>>,
};
