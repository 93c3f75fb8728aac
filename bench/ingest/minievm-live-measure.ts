/**
 * What bench/ingest/minievm-live.ts measures beside its run: the API's own delivery histogram, the
 * events' delivery latencies and per-stream counts, the stages' checkpoints, the PostgreSQL
 * backends' CPU, and the truth check at the end.
 */
import pg from 'pg';
import { percentile, type SimProcess } from '../lib/harness.js';
import { firstCommit, type Commit } from '../stream/chain.js';
import { nowMs, type ClientGroup } from '../stream/clients.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits = 1) => Number(x.toFixed(digits));

/** The API's own delivery histogram of the txs stream (docs/stream.md §3): count per `le` bound. */
export async function deliveryBuckets(metricsUrl: string): Promise<Map<number, number>> {
  const text = await fetch(metricsUrl).then((r) => r.text());
  const buckets = new Map<number, number>();
  for (const line of text.split('\n')) {
    const m = /^rollup_indexer_stream_delivery_seconds_bucket\{(.*)\} (\S+)$/.exec(line);
    if (!m || !m[1]!.includes('txs') || m[1]!.includes('evm')) continue;
    const le = /le="([^"]+)"/.exec(m[1]!)?.[1];
    if (le !== undefined) buckets.set(le === '+Inf' ? Infinity : Number(le), Number(m[2]));
  }
  return buckets;
}

/**
 * The upper bound (ms) of the bucket holding the p-th percentile of the observations between two
 * readings; past the last finite bound, `"> {bound}"`.
 */
export function bucketPercentileMs(
  before: Map<number, number>,
  after: Map<number, number>,
  p: number,
): number | string | undefined {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  for (const le of bounds) {
    if ((after.get(le) ?? 0) - (before.get(le) ?? 0) < (p / 100) * total) continue;
    return Number.isFinite(le) ? le * 1000 : `> ${bounds.at(-2)! * 1000}`;
  }
  return undefined;
}

/** Latencies in 0.1 ms buckets up to 2 min (the last bucket holds anything later): percentiles of millions of events. */
export function histogram() {
  const buckets = new Uint32Array(1_200_001);
  let count = 0;
  let max = 0;
  return {
    add(ms: number) {
      buckets[Math.min(buckets.length - 1, Math.max(0, Math.round(ms * 10)))]! += 1;
      count += 1;
      max = Math.max(max, ms);
    },
    count: () => count,
    percentile(p: number): number {
      if (count === 0) return NaN;
      const rank = Math.min(count - 1, Math.floor((p / 100) * count));
      let seen = 0;
      for (let i = 0; i < buckets.length; i++) {
        seen += buckets[i]!;
        if (seen > rank) return i / 10;
      }
      return max;
    },
    max: () => max,
  };
}

/**
 * Events received, drained every second: delivery latency of the window's heights, and per stream
 * how many events arrived with ids up to `lastSequence` (set once the window closes).
 */
export function createDeliveryLedger(group: ClientGroup, commits: Commit[], streams: number) {
  const fromCommit = histogram();
  const fromUpdatedAt = histogram();
  const counted = new Uint32Array(streams);
  const window = { firstHeight: Infinity, lastHeight: Infinity, lastSequence: Infinity };
  let pending = { ids: [] as number[], atMs: [] as number[], stream: [] as number[] };
  const drain = () => {
    const { ids, atMs, stream } = group.arrivals;
    const all = {
      ids: pending.ids.concat(ids),
      atMs: pending.atMs.concat(atMs),
      stream: pending.stream.concat(stream),
    };
    ids.length = 0;
    atMs.length = 0;
    stream.length = 0;
    pending = { ids: [], atMs: [], stream: [] };
    for (let i = 0; i < all.ids.length; i++) {
      const id = all.ids[i]!;
      const commit = firstCommit(commits, 'txSequence', id);
      if (commit === undefined) {
        // Its commit's NOTIFY has not been read yet: next drain.
        pending.ids.push(id);
        pending.atMs.push(all.atMs[i]!);
        pending.stream.push(all.stream[i]!);
        continue;
      }
      if (id <= window.lastSequence) counted[all.stream[i]!]! += 1;
      if (commit.height >= window.firstHeight && commit.height <= window.lastHeight) {
        fromCommit.add(all.atMs[i]! - commit.notifiedMs);
        fromUpdatedAt.add(all.atMs[i]! - commit.updatedAtMs);
      }
    }
  };
  return { fromCommit, fromUpdatedAt, counted, window, drain, pending: () => pending.ids.length };
}

/** When each height reached the internal-tx and rich-list checkpoints, polled every 100 ms. */
export async function followStages(dbUrl: string) {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const reached = { internal_tx: [] as number[], rich_list: [] as number[] };
  const heights = { internal_tx: 0, rich_list: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await db.query<{ stream: 'internal_tx' | 'rich_list'; height: string }>(
        `SELECT stream, height FROM checkpoint WHERE stream IN ('internal_tx', 'rich_list')`,
      );
      const at = nowMs();
      for (const row of rows) {
        const h = Number(row.height);
        for (let x = heights[row.stream] + 1; x <= h; x++) reached[row.stream][x] = at;
        heights[row.stream] = Math.max(heights[row.stream], h);
      }
      await sleep(100);
    }
  })();
  return {
    reached,
    heights,
    stop: async () => {
      running = false;
      await loop;
      await db.end();
    },
  };
}

/** Heights 1..final in the database against the simulator's truth routes: hash, tx count, tx hashes. */
export async function truthCheck(dbUrl: string, sim: SimProcess) {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const blocks = (
    await db.query<{ height: string; hash: Buffer; tx_count: number }>(
      'SELECT height, hash, tx_count FROM block ORDER BY height',
    )
  ).rows;
  const txs = (
    await db.query<{ height: string; hash: Buffer }>('SELECT height, hash FROM tx ORDER BY sequence')
  ).rows;
  const final = Number(
    (await db.query<{ h: string }>(`SELECT height AS h FROM checkpoint WHERE stream = 'blocks'`)).rows[0]!.h,
  );
  await db.end();
  const txsByHeight = new Map<number, string[]>();
  for (const t of txs) {
    const h = Number(t.height);
    if (!txsByHeight.has(h)) txsByHeight.set(h, []);
    txsByHeight.get(h)!.push(t.hash.toString('hex').toUpperCase());
  }
  const differences: string[] = [];
  if (blocks.length !== final || Number(blocks.at(-1)?.height) !== final)
    differences.push(`${blocks.length} blocks stored, checkpoint at ${final}`);
  let truthTxs = 0;
  let next = 0;
  const worker = async () => {
    while (next < blocks.length) {
      const b = blocks[next++]!;
      const h = Number(b.height);
      const truth = (await fetch(`${sim.rest}/sim/v1/truth/block/${h}`).then((r) => r.json())) as {
        hash: string;
        txs: { hash: string }[];
      };
      truthTxs += truth.txs.length;
      const stored = txsByHeight.get(h) ?? [];
      if (b.hash.toString('hex').toUpperCase() !== truth.hash) differences.push(`height ${h}: block hash`);
      if (b.tx_count !== truth.txs.length || stored.length !== truth.txs.length)
        differences.push(
          `height ${h}: ${stored.length} txs stored (tx_count ${b.tx_count}), truth ${truth.txs.length}`,
        );
      else if (truth.txs.some((t, i) => t.hash !== stored[i])) differences.push(`height ${h}: tx hashes`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return {
    heights: final,
    txs: txs.length,
    truthTxs,
    differences: differences.length,
    ...(differences.length > 0 ? { firstDifferences: differences.slice(0, 5) } : {}),
  };
}

export function lagStats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.at(-1) ?? NaN),
  };
}
