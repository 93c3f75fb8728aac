import { InputError } from '../../shared/errors.js';
import { pick, Stream } from './prng.js';

/**
 * Closed-form tx schedule (docs/node-data.md §4.2): the number of txs in a block depends only on
 * (seed, height mod PERIOD), so a prefix table over one period gives the global index of a
 * block's first tx in O(1) and any height can be generated without its predecessors.
 */
export const PERIOD = 1000;

export interface TxCountSpec {
  min: number;
  max: number;
}

export function parseTxsPerBlock(spec: string): TxCountSpec {
  const match = /^(\d+)(?:-(\d+))?$/.exec(spec.trim());
  if (!match)
    throw new InputError('invalid_txs_per_block', `--txs-per-block must be N or MIN-MAX, got "${spec}"`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min || max > 100_000) {
    throw new InputError('invalid_txs_per_block', `--txs-per-block range is invalid: "${spec}"`);
  }
  return { min, max };
}

export interface Schedule {
  /** Number of txs in block `height` (height ≥ 1). */
  count(height: number): number;
  /** Global index of the first tx of block `height` (txs are numbered from 0 at height 1). */
  firstTx(height: number): number;
  /** The height holding global tx `g`. */
  heightOfTx(g: number): number;
}

export function createSchedule(seed: number, spec: TxCountSpec): Schedule {
  const counts = new Int32Array(PERIOD);
  const prefix = new Float64Array(PERIOD + 1);
  for (let i = 0; i < PERIOD; i++) {
    counts[i] = spec.min + pick(seed, Stream.txCount, i, spec.max - spec.min + 1);
    prefix[i + 1] = prefix[i]! + counts[i]!;
  }
  const perPeriod = prefix[PERIOD]!;
  return {
    count: (height) => counts[(height - 1) % PERIOD]!,
    firstTx: (height) => Math.floor((height - 1) / PERIOD) * perPeriod + prefix[(height - 1) % PERIOD]!,
    heightOfTx(g) {
      if (perPeriod === 0) return 1;
      const period = Math.floor(g / perPeriod);
      const rest = g - period * perPeriod;
      let lo = 0;
      let hi = PERIOD - 1;
      // The last residue whose prefix is ≤ rest: it holds at least one tx, since any empty
      // residue before it has the same prefix as its successor.
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (prefix[mid]! <= rest) lo = mid;
        else hi = mid - 1;
      }
      return period * PERIOD + lo + 1;
    },
  };
}

/**
 * Heights to search for a hash the simulator has not generated yet (sha256 cannot be inverted):
 * the most recent ones, at most 100 heights and about 5,000 txs.
 */
export function recentHeights(schedule: Schedule, head: number, base: number): number[] {
  const out: number[] = [];
  let txs = 0;
  for (let h = head; h >= base && out.length < 100 && txs < 5_000; h--) {
    out.push(h);
    txs += schedule.count(h);
  }
  return out;
}
