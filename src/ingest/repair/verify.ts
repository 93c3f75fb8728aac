import type { Db } from '../../store/driver/db.js';
import { normaliseTimes, readStoredBounds, readStoredHeights } from '../../store/readers/stored-heights.js';
import { InputError } from '../../shared/errors.js';
import { compareHeights, type Drift } from './compare.js';
import type { NodeRows } from './node-rows.js';
import { verifyState, type StateCheck, type StateReport } from './verify-state.js';

/**
 * `verify` (docs/ingest.md §11.1): the node's blocks of some stored heights, prepared as ingest
 * prepares them, compared with the stored rows. Heights go in batches (one CometBFT batch request
 * for a batch's blocks and results, one for EVM receipts), a bounded number of batches at a time.
 */
export interface VerifyPlan {
  /** Ascending, each at most the block checkpoint. */
  heights: number[];
  /** Heights per node request (default 20). */
  batch?: number;
  /** Batches in flight (default 4). */
  concurrency?: number;
  accountPrefix: string;
  /** NFT owners and rich-list balances too (a sample, or all); absent: not checked. */
  state?: Omit<StateCheck, 'accountPrefix'>;
}

export interface VerifyReport {
  heights: number;
  drifts: Drift[];
  seconds: number;
  nodeRequests: number;
  /** What the state checks read, when asked. */
  state?: Omit<StateReport, 'drifts'>;
}

/** Heights `from..to`, or `sample` of them drawn by `seed` (the same seed, the same heights). */
export async function verifyHeights(
  db: Db,
  range: { from?: number; to?: number; sample?: number; seed?: number },
): Promise<number[]> {
  const { lowest, indexed } = await readStoredBounds(db);
  const low = Math.max(range.from ?? lowest, 1);
  const high = range.to ?? indexed;
  if (high > indexed)
    throw new InputError('invalid_range', `--to ${high} is above the indexed height ${indexed}`);
  if (low > high) throw new InputError('invalid_range', `--from ${low} is above --to ${high}`);
  const count = high - low + 1;
  if (range.sample === undefined || range.sample >= count)
    return Array.from({ length: count }, (_, i) => low + i);
  return sampleHeights(low, high, range.sample, range.seed ?? 1);
}

/** `n` distinct heights of low..high from a seeded generator (mulberry32), ascending. */
function sampleHeights(low: number, high: number, n: number, seed: number): number[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const picked = new Set<number>();
  while (picked.size < n) picked.add(low + Math.floor(next() * (high - low + 1)));
  return [...picked].sort((a, b) => a - b);
}

export async function runVerify(db: Db, node: NodeRows, plan: VerifyPlan): Promise<VerifyReport> {
  const started = performance.now();
  const size = plan.batch ?? 20;
  const batches: number[][] = [];
  for (let i = 0; i < plan.heights.length; i += size) batches.push(plan.heights.slice(i, i + size));
  const results: Drift[][] = new Array<Drift[]>(batches.length);
  let nextBatch = 0;
  const worker = async () => {
    while (nextBatch < batches.length) {
      const index = nextBatch++;
      results[index] = await verifyBatch(db, node, batches[index]!, plan.accountPrefix);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, plan.concurrency ?? 4) }, worker));
  const state =
    plan.state && (await verifyState(db, node, { ...plan.state, accountPrefix: plan.accountPrefix }));
  return {
    heights: plan.heights.length,
    drifts: [...results.flat(), ...(state?.drifts ?? [])],
    ...(state
      ? { state: { nfts: state.nfts, ...(state.richList ? { richList: state.richList } : {}) } }
      : {}),
    seconds: (performance.now() - started) / 1000,
    nodeRequests: await node.requests(),
  };
}

async function verifyBatch(
  db: Db,
  node: NodeRows,
  heights: number[],
  accountPrefix: string,
): Promise<Drift[]> {
  const [blocks, stored] = await Promise.all([node.prepare(heights), readStoredHeights(db, heights)]);
  const times = await normaliseTimes(
    db,
    blocks.map((b) => b.time),
  );
  return compareHeights(blocks, times, stored, { vm: node.chain.vmType, accountPrefix });
}
