/**
 * A minievm-speed chain, live (issue 34): the simulator makes EVM blocks every `--block-ms` (100)
 * with `--txs` (50) txs each — 500 txs/s — while ONE `rollup-indexer start` process on PostgreSQL
 * (every stage on: NFTs, internal txs, rich list) ingests them and serves `--subscribers` (1,000)
 * SSE streams; after `--minutes` (10) everything it did is checked against the simulator's truth.
 * Prints one JSON object with a pass/fail per target:
 *
 *   npm run bench:minievm-live -- [--minutes 10] [--subscribers 1000] [--txs 50] [--block-ms 100]
 *     [--mix 0.9,0.09,0.01] [--msgs a,b|rarest] [--admin-url postgres://…/postgres] [--cpu-prof DIR]
 *
 * - **Head lag** (target p99 < 300 ms): block made → committed. The simulator's head is a closed
 *   form of its start time (`src/sim/node-heights.ts`), so block h is made at start + (h − 1) ×
 *   block time; the start is pinned by polling its `/status` before anything else runs
 *   (`simClockUncertaintyMs` is the width of that bound). Committed is when the commit's NOTIFY
 *   reached the bench.
 * - **Delivery** (target p99 < 300 ms): committed (NOTIFY at the bench) → the event's closing
 *   blank line received, for events of heights committed in the window; `p99FromUpdatedAtMs`
 *   measures from the checkpoint's `updated_at` (the writer's transaction start) instead.
 * - **Stage lag** (target: within 2 s of the head, at every height): the time from a height's
 *   commit to the internal-tx and rich-list checkpoints reaching it. These are the heights /status
 *   serves (`internal_tx_height`, `rich_list_height`), read from the `checkpoint` table every
 *   100 ms: /status is cached for 1 s, which would add up to a second to every reading.
 * - **Nothing lost**: every stream opens with `from_height` = the first height after the warm-up,
 *   so what it owes is known: per stream, events received up to the window's last commit equal
 *   the txs matching its filter in those heights (counted by bench/stream/demand.ts's own SQL),
 *   no id twice (bench/stream/clients.ts), no stream closed; then, the `start` process stopped,
 *   every height 1..final in the database has the truth route's block hash, tx count and tx
 *   hashes in order (`GET {rest}/sim/v1/truth/block/{h}`).
 * - **CPU** of each process over the window (/proc utime + stime, % of one core): the simulator,
 *   `start`, this bench (the subscribers' side), and the PostgreSQL backends of the bench's
 *   database (sampled from pg_stat_activity every 2 s); the host's load averages.
 *
 * `--cpu-prof DIR` runs `start` with node's `--cpu-prof` (a .cpuprofile per thread in DIR, written
 * when it stops). File descriptors: `ulimit -n` must exceed the subscribers + ~100.
 */
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort } from '../../test/helpers/pg-cluster.js';
import { backendCpu, backendCpuBetween } from '../lib/http-load.js';
import { percentile, startSimProcess, withFreshDatabase, type SimProcess } from '../lib/harness.js';
import {
  firstCommit,
  followCommits,
  sampleChain,
  streamCounters,
  subscriberPaths,
  type Commit,
} from '../stream/chain.js';
import { nowMs, openStreams, type ClientGroup } from '../stream/clients.js';
import { streamDemand } from '../stream/demand.js';
import { cpuMs, rssKb, spawnCli, stopChild, waitForHttp } from '../stream/procs.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    subscribers: { type: 'string', default: '1000' },
    txs: { type: 'string', default: '50' },
    'block-ms': { type: 'string', default: '100' },
    mix: { type: 'string', default: '0.9,0.09,0.01' },
    msgs: { type: 'string' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'cpu-prof': { type: 'string' },
  },
});
const minutes = Number(args.minutes);
const blockMs = Number(args['block-ms']);
const subscribers = Number(args.subscribers);
const HOST = '127.0.0.1';
/** The simulator's head when it starts: block h is made at its start + (h − START_HEAD) × block time. */
const START_HEAD = 1;
/** Heights committed before the subscribers' streams start (most of the keyring has transacted). */
const WARM_UP_HEIGHT = 60;
/** How long ingest gets to reach the head after the warm-up before the window opens regardless. */
const CATCH_UP_DEADLINE_MS = 120_000;
/** How long after the window the streams and stages get to deliver its last height. */
const TAIL_DEADLINE_MS = 60_000;
const TARGETS = { headLagP99Ms: 300, deliveryP99Ms: 300, stageLagMaxMs: 2000 };

const log = (message: string) => process.stderr.write(`[bench:minievm-live] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits = 1) => Number(x.toFixed(digits));

async function simHead(sim: SimProcess): Promise<number> {
  const body = (await fetch(`${sim.rpc}/status`).then((r) => r.json())) as {
    result: { sync_info: { latest_block_height: string } };
  };
  return Number(body.result.sync_info.latest_block_height);
}

/** Whether the committed height reached the simulator's head (as it was when asked) in `ms`. */
async function caughtUpWithin(sim: SimProcess, committed: () => number, ms: number): Promise<boolean> {
  const deadline = nowMs() + ms;
  while (nowMs() < deadline) {
    if (committed() >= (await simHead(sim))) return true;
    await sleep(50);
  }
  return false;
}

/** The API's own delivery histogram of the txs stream (docs/stream.md §3): count per `le` bound. */
async function deliveryBuckets(metricsUrl: string): Promise<Map<number, number>> {
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
function bucketPercentileMs(
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

/**
 * Bounds on the simulator's start time from its /status: a poll sent at t0 and answered at t1
 * with head h means start + (h − S) × B ≤ t1 and start + (h + 1 − S) × B > t0.
 */
async function simClock(sim: SimProcess): Promise<{ madeMs(height: number): number; uncertaintyMs: number }> {
  let lo = -Infinity;
  let hi = Infinity;
  const until = nowMs() + 3 * blockMs + 500;
  while (nowMs() < until) {
    const t0 = nowMs();
    const h = await simHead(sim);
    const t1 = nowMs();
    lo = Math.max(lo, t0 - (h + 1 - START_HEAD) * blockMs);
    hi = Math.min(hi, t1 - (h - START_HEAD) * blockMs);
  }
  const start = (lo + hi) / 2;
  return { madeMs: (h) => start + (h - START_HEAD) * blockMs, uncertaintyMs: hi - lo };
}

/** Latencies in 0.1 ms buckets up to 2 min (the last bucket holds anything later): percentiles of millions of events. */
function histogram() {
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
function createDeliveryLedger(group: ClientGroup, commits: Commit[], streams: number) {
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
async function followStages(dbUrl: string) {
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

/**
 * CPU ms of the PostgreSQL backends of `dbUrl`'s database from `begin()` on (bench/lib/http-load.ts's
 * reading), snapshotted every 2 s so a backend that exits keeps its last reading.
 */
async function followBackends(dbUrl: string) {
  const probe = await backendCpu(dbUrl);
  let before = new Map<number, number>();
  const seen = new Map<number, number>();
  const sample = async () => {
    for (const [pid, seconds] of await probe.snapshot()) seen.set(pid, seconds);
  };
  const timer = setInterval(() => void sample().catch(() => undefined), 2000);
  return {
    begin: async () => {
      before = await probe.snapshot();
    },
    usedMs: async () => {
      clearInterval(timer);
      await sample();
      await probe.close();
      return backendCpuBetween(before, seen) * 1000;
    },
  };
}

/** Heights 1..final in the database against the simulator's truth routes: hash, tx count, tx hashes. */
async function truthCheck(dbUrl: string, sim: SimProcess) {
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

function lagStats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.at(-1) ?? NaN),
  };
}

async function run(dbUrl: string) {
  const sim = await startSimProcess([
    ...['--vm', 'evm', '--live', '--head', String(START_HEAD), '--block-time-ms', String(blockMs)],
    ...['--txs-per-block', args.txs!, '--fast-signatures'],
  ]);
  const clock = await simClock(sim);
  log(`simulator start pinned to ±${round(clock.uncertaintyMs / 2)} ms`);
  const port = await freePort();
  const start = spawnCli(
    ['start'],
    {
      DATABASE_URL: dbUrl,
      RPC_URL: sim.rpc,
      REST_URL: sim.rest,
      JSON_RPC_URL: sim.jsonRpc!,
      VM_TYPE: 'evm',
      INTERNAL_TX: 'true',
      RICH_LIST: 'true',
      NFT_INDEXING: 'true',
      PORT: String(port),
      HOST,
      API_STREAM_MAX_SUBSCRIBERS: String(Math.max(10_000, subscribers)),
    },
    {
      logsToStderr: true,
      nodeFlags: args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`] : [],
    },
  );
  let group: ClientGroup | undefined;
  try {
    await waitForHttp(`http://${HOST}:${port}/health`, start);
    const follower = await followCommits(dbUrl);
    const commits = follower.commits;
    while (follower.height() < WARM_UP_HEIGHT) await sleep(100);
    // The window measures keeping up, not the catch-up of the start-up's backlog.
    const caughtUp = await caughtUpWithin(sim, follower.height, CATCH_UP_DEADLINE_MS);
    if (!caughtUp) log(`ingest did not reach the head in ${CATCH_UP_DEADLINE_MS / 1000} s; measuring anyway`);
    const sample = await sampleChain(dbUrl);
    const fromHeight = follower.height() + 1;
    const paths = subscriberPaths(subscribers, sample, args.mix!, args.msgs).map(
      (p) => `${p}${p.includes('?') ? '&' : '?'}from_height=${fromHeight}`,
    );
    log(
      `${sample.accounts.length} accounts, types ${sample.msgTypes.join(', ')}; ${paths.length} streams from height ${fromHeight}`,
    );
    const stages = await followStages(dbUrl);
    const backends = await followBackends(dbUrl);
    group = await openStreams({ host: HOST, port }, paths, 200, true);
    const ledger = createDeliveryLedger(group, commits, paths.length);
    const drainer = setInterval(ledger.drain, 1000);

    // The window: heights committed from now on.
    const windowStartMs = nowMs();
    const firstHeight = follower.height() + 1;
    ledger.window.firstHeight = firstHeight;
    await backends.begin();
    const metricsUrl = `http://${HOST}:${port}/metrics`;
    const buckets0 = await deliveryBuckets(metricsUrl);
    const cpu0 = { sim: cpuMs(sim.pid!), start: cpuMs(start.pid!), bench: process.cpuUsage() };
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const loads: number[] = [];
    const loadTimer = setInterval(() => loads.push(loadavg()[0]!), 10_000);
    const rss: number[] = [];
    const rssTimer = setInterval(() => rss.push(rssKb(start.pid!)), 10_000);
    const load0 = loadavg();
    log(`window of ${minutes} min from height ${firstHeight}`);
    await sleep(minutes * 60_000);
    const windowMs = nowMs() - windowStartMs;
    const cpu = {
      sim: cpuMs(sim.pid!) - cpu0.sim,
      start: cpuMs(start.pid!) - cpu0.start,
      bench: (() => {
        const d = process.cpuUsage(cpu0.bench);
        return (d.user + d.system) / 1000;
      })(),
      postgres: await backends.usedMs(),
    };
    loop.disable();
    clearInterval(loadTimer);
    clearInterval(rssTimer);
    const loadEnd = loadavg();

    // The window's last commit: streams and stages owe everything up to it.
    const last = commits.at(-1)!;
    ledger.window.lastHeight = last.height;
    ledger.window.lastSequence = last.txSequence;
    log(`window closed at height ${last.height} (tx ${last.txSequence}); waiting for its tail`);
    const demand = await streamDemand(dbUrl, paths, {
      fromHeight: fromHeight - 1,
      toHeight: last.height,
      seconds: windowMs / 1000,
    });
    const tailDeadline = nowMs() + TAIL_DEADLINE_MS;
    const tailDone = () => {
      ledger.drain();
      const streamsDone = demand.perPath.every(
        (owed, i) => group!.failedStreams.has(i) || ledger.counted[i]! >= owed,
      );
      const stagesDone = stages.heights.internal_tx >= last.height && stages.heights.rich_list >= last.height;
      return streamsDone && stagesDone && ledger.pending() === 0;
    };
    while (!tailDone() && nowMs() < tailDeadline) await sleep(200);
    clearInterval(drainer);
    const counters = await streamCounters(metricsUrl);
    const apiDeliveryP99Ms = bucketPercentileMs(buckets0, await deliveryBuckets(metricsUrl), 99);
    log(
      `delivery p50 ${ledger.fromCommit.percentile(50)} p99 ${ledger.fromCommit.percentile(99)} ms (API's own p99 bucket ${apiDeliveryP99Ms} ms)`,
    );
    await stages.stop();
    await follower.close();
    group.close();
    await stopChild(start);

    // Lags of the window's heights.
    const headLags: number[] = [];
    const stageLags = { internal_tx: [] as number[], rich_list: [] as number[] };
    const unreached = { internal_tx: 0, rich_list: 0 };
    for (let h = firstHeight; h <= last.height; h++) {
      const c = firstCommit(commits, 'height', h)!;
      headLags.push(c.notifiedMs - clock.madeMs(h));
      for (const stage of ['internal_tx', 'rich_list'] as const) {
        const at = stages.reached[stage][h];
        if (at === undefined) unreached[stage] += 1;
        else stageLags[stage].push(Math.max(0, at - c.notifiedMs));
      }
    }
    const head = lagStats(headLags);
    const internalTx = { ...lagStats(stageLags.internal_tx), unreachedHeights: unreached.internal_tx };
    const richList = { ...lagStats(stageLags.rich_list), unreachedHeights: unreached.rich_list };
    const short = demand.perPath.filter((owed, i) => ledger.counted[i]! < owed).length;
    const extra = demand.perPath.filter((owed, i) => ledger.counted[i]! > owed).length;
    const received = ledger.counted.reduce((a, b) => a + b, 0);

    log(
      `measured (truth check next): ${JSON.stringify({ headLag: head, internalTx, richList, received, owed: demand.events, short, extra, repeats: group.repeats, failures: group.failures, cpuMs: cpu, windowMs, heights: [firstHeight, last.height], load: loadEnd })}`,
    );
    const truth = await truthCheck(dbUrl, sim);
    const delivery = {
      samples: ledger.fromCommit.count(),
      p50Ms: round(ledger.fromCommit.percentile(50)),
      p99Ms: round(ledger.fromCommit.percentile(99)),
      maxMs: round(ledger.fromCommit.max()),
      p99FromUpdatedAtMs: round(ledger.fromUpdatedAt.percentile(99)),
      // The API's own histogram (commit → written to the sockets), as its bucket's upper bound.
      apiP99BucketMs: apiDeliveryP99Ms,
    };
    const streams = {
      subscribers: paths.length,
      opened: group.opened,
      failures: group.failures,
      ...(group.firstFailure ? { firstFailure: group.firstFailure.slice(0, 300) } : {}),
      owedEvents: demand.events,
      receivedEvents: received,
      eventsPerSec: Math.round(received / (windowMs / 1000)),
      streamsShort: short,
      streamsWithExtra: extra,
      repeats: group.repeats,
      ...(group.firstRepeat ? { firstRepeat: group.firstRepeat } : {}),
      ...counters,
    };
    const nothingLost =
      streams.failures === 0 &&
      short === 0 &&
      extra === 0 &&
      group.repeats === 0 &&
      truth.differences === 0 &&
      truth.txs === truth.truthTxs;
    const pct = (ms: number) => round((ms / windowMs) * 100);
    const targets = {
      headLagP99: { ms: head.p99Ms, limit: TARGETS.headLagP99Ms, pass: head.p99Ms < TARGETS.headLagP99Ms },
      deliveryP99: {
        ms: delivery.p99Ms,
        limit: TARGETS.deliveryP99Ms,
        pass: delivery.p99Ms < TARGETS.deliveryP99Ms,
      },
      internalTxLagMax: {
        ms: internalTx.maxMs,
        limit: TARGETS.stageLagMaxMs,
        pass: unreached.internal_tx === 0 && internalTx.maxMs <= TARGETS.stageLagMaxMs,
      },
      richListLagMax: {
        ms: richList.maxMs,
        limit: TARGETS.stageLagMaxMs,
        pass: unreached.rich_list === 0 && richList.maxMs <= TARGETS.stageLagMaxMs,
      },
      nothingLost: { pass: nothingLost },
    };
    return {
      bench: 'minievm-live',
      pass: Object.values(targets).every((t) => t.pass),
      targets,
      minutes: round(windowMs / 60_000, 2),
      blockMs,
      txsPerBlock: Number(args.txs),
      heights: {
        first: firstHeight,
        last: last.height,
        perSec: round((last.height - firstHeight + 1) / (windowMs / 1000)),
      },
      simClockUncertaintyMs: round(clock.uncertaintyMs),
      caughtUpBeforeWindow: caughtUp,
      headLag: head,
      delivery,
      internalTx,
      richList,
      streams,
      truth,
      cpuPercentOfOneCore: {
        sim: pct(cpu.sim),
        start: pct(cpu.start),
        postgresBackends: pct(cpu.postgres),
        bench: pct(cpu.bench),
      },
      startRssMbMax: round(Math.max(...rss) / 1024),
      benchLoopDelayP99Ms: round(loop.percentile(99) / 1e6),
      loadAvg: {
        start: load0.map((x) => round(x, 2)),
        end: loadEnd.map((x) => round(x, 2)),
        max1: round(Math.max(...loads, loadEnd[0]!), 2),
      },
    };
  } finally {
    group?.close();
    await stopChild(start);
    await sim.stop();
  }
}

const result = await withFreshDatabase(args['admin-url']!, 'ri_bench_minievm_live', run);
process.stdout.write(`${JSON.stringify(result)}\n`);
