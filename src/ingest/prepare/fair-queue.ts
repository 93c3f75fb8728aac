/**
 * Which chain's chunk a shared prepare pool starts next (docs/chains.md §7): one FIFO queue per
 * chain, served round robin, so a chain catching up from far behind (its whole window queued)
 * takes turns with the others instead of going first. A chain with nothing in flight keeps a slot
 * in reserve: a chain at the head, whose next chunk comes one block at a time, finds a slot free
 * at once, however many chunks the others would start.
 */
export interface FairQueue<J> {
  attach(chain: number): void;
  /** Forgets the chain; returns its jobs not started yet. */
  detach(chain: number): J[];
  push(chain: number, job: J): void;
  /** The next job to start now that `free` slots are free, or undefined: nothing may start. */
  take(free: number): { chain: number; job: J } | undefined;
  /** One of the chain's started jobs ended. */
  done(chain: number): void;
}

interface ChainQueue<J> {
  queued: J[];
  inFlight: number;
}

export function createFairQueue<J>(): FairQueue<J> {
  /** In attach order; `turn` is where the next look starts. */
  const chains = new Map<number, ChainQueue<J>>();
  let order: number[] = [];
  let turn = 0;

  /** Chains other than `chain` holding no slot: each keeps one free for its next chunk. */
  const idleOthers = (chain: number) =>
    order.filter((c) => c !== chain && chains.get(c)!.inFlight === 0).length;
  const mayStart = (chain: number, q: ChainQueue<J>, free: number) =>
    q.queued.length > 0 && (q.inFlight === 0 || free - 1 >= idleOthers(chain));

  return {
    attach(chain) {
      chains.set(chain, { queued: [], inFlight: 0 });
      order.push(chain);
    },
    detach(chain) {
      const q = chains.get(chain);
      chains.delete(chain);
      order = order.filter((c) => c !== chain);
      return q?.queued ?? [];
    },
    push(chain, job) {
      chains.get(chain)!.queued.push(job);
    },
    take(free) {
      if (free <= 0) return undefined;
      for (let i = 0; i < order.length; i++) {
        const at = (turn + i) % order.length;
        const chain = order[at]!;
        const q = chains.get(chain)!;
        if (!mayStart(chain, q, free)) continue;
        turn = (at + 1) % order.length;
        q.inFlight++;
        return { chain, job: q.queued.shift()! };
      }
      return undefined;
    },
    done(chain) {
      const q = chains.get(chain);
      if (q) q.inFlight--;
    },
  };
}

/**
 * Places (chunks prepared at once) per thread of a pool of `workers` threads serving `chains`
 * chains: one chain's whole fetch window (`window`) on one thread, and enough places in all for a
 * window besides one place kept for each other chain. With fewer places than chains the kept place
 * cannot exist: a chain whose node is slow holds its place for as long as its node takes, and the
 * chains at their heads, whose blocks come at once, would queue behind each other.
 */
export function placesPerWorker(chains: number, workers: number, window: number): number {
  return Math.max(window, Math.ceil((window + Math.max(chains, 1) - 1) / Math.max(workers, 1)));
}
