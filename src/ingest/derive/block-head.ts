/** The block stream's committed height as the stages see it, with a way to wait for it to move. */
export interface BlockHead {
  height(): number;
  /** True once the block stream has stopped for good (reached its last height): it will not move. */
  finished(): boolean;
  /** Resolves at the block stream's next commit, when it finishes, or when `signal` aborts. */
  next(signal: AbortSignal): Promise<void>;
}

export function createBlockHead(read: () => number): BlockHead & { notify(): void; finish(): void } {
  let waiters: Array<() => void> = [];
  let stopped = false;
  const wakeAll = () => {
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };
  return {
    height: read,
    finished: () => stopped,
    next(signal) {
      return new Promise<void>((resolve) => {
        if (signal.aborted || stopped) return resolve();
        const wake = () => {
          signal.removeEventListener('abort', wake);
          resolve();
        };
        signal.addEventListener('abort', wake, { once: true });
        waiters.push(wake);
      });
    },
    notify: wakeAll,
    finish() {
      stopped = true;
      wakeAll();
    },
  };
}
