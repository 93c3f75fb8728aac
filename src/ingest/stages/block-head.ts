/** The block stream's committed height as the stages see it, with a way to wait for it to move. */
export interface BlockHead {
  height(): number;
  /** Resolves at the block stream's next commit, or when `signal` aborts. */
  next(signal: AbortSignal): Promise<void>;
}

export function createBlockHead(read: () => number): BlockHead & { notify(): void } {
  let waiters: Array<() => void> = [];
  return {
    height: read,
    next(signal) {
      return new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        signal.addEventListener('abort', done, { once: true });
        waiters.push(done);
      });
    },
    notify() {
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    },
  };
}
