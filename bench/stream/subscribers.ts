/**
 * Live-stream benchmark (issue 20): N concurrent SSE subscribers on ONE `rollup-indexer api`
 * process while the simulator makes 5 blocks/s x 50 txs, against a bare node:http SSE server
 * writing the same bytes to the same number of connections (the ceiling). JSON lines on stdout.
 *
 *   npm run bench:streams -- --subscribers 10000,1000 --seconds 20
 *
 * Production layout: `sim --live` → `indexer` → PostgreSQL → `api` (LISTEN on the primary), each
 * its own process, so the API's CPU and memory are its own. Subscribers (bench/stream/clients.ts)
 * are 90% filtered by account (half on accounts seen on chain, busiest first; half on accounts that
 * never transact), 9% by `msgs` (round-robin over the message types seen), 1% unfiltered, all on
 * /indexer/stream/v1/txs.
 *
 * Latency: an event's commit time is the checkpoint's `updated_at` for the commit that brought its
 * height (read by the bench on every commit NOTIFY, as the API's hub does; `now()` is the writer's
 * transaction start, so this includes the writer's own statement time), and, as a lower bound,
 * when the bench received that NOTIFY. Delivery time is when the event's closing blank line
 * reached the bench. Only heights committed inside the measured window count.
 *
 * Accounting: `eventsPerSec` counts every event received in the window, including `backlogEvents`
 * (heights committed before the window, delivered in it: in flight when it opened, or a stall's
 * backlog); what the window's own heights owe is `demandEvents`, of which `latencySamples` arrived
 * in it. The window opens once the API has delivered the backlog of the pause (`apiCatchUpSeconds`).
 * `repeats` counts events whose id was not above their stream's previous id (an event sent twice):
 * it must be 0. `slowCloses` and `readFailures` are the API's own counters (/metrics);
 * `clientLoopDelay*` is the bench's event-loop delay: a bench too busy to read its sockets makes
 * the API close streams as slow that a real client would have read.
 *
 * Memory: API RSS with N idle subscribers (the indexer is paused with SIGSTOP, so nothing is
 * committed) minus RSS with none, over N. CPU: utime+stime of the API from /proc/<pid>/stat.
 * File descriptors: the bench holds N sockets and the API N; `ulimit -n` must exceed N + ~100 in
 * both (children inherit the bench's limit; raise it in the shell before a larger run).
 *
 * Options: --subscribers 10000,1000  --seconds 20  --accounts 2000 (sim keyring)  --txs-per-block 50
 * --block-time-ms 200  --admin-url postgres://postgres@127.0.0.1:5432/postgres  --no-ceiling
 * --mix 0.9,0.09,0.01 (shares by account, by msgs, unfiltered)  --msgs a,b (types for the msgs
 * streams; default every type seen, round-robin; `rarest`: all on the least frequent type)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpuMs, rssKb, spawnCli, stopChild, waitForHttp } from './procs.js';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { percentile, startSimProcess } from '../lib/harness.js';
import { nowMs, openStreams, type ClientGroup } from './clients.js';
import { streamDemand, type Demand } from './demand.js';
import {
  firstCommit,
  followCommits,
  sampleChain,
  streamCounters,
  subscriberPaths,
  type ChainSample,
  type CommitFollower,
} from './chain.js';
import { freePort } from '../../test/helpers/pg-cluster.js';

const { values: args } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '10000,1000' },
    seconds: { type: 'string', default: '20' },
    accounts: { type: 'string', default: '2000' },
    'txs-per-block': { type: 'string', default: '50' },
    'block-time-ms': { type: 'string', default: '200' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'no-ceiling': { type: 'boolean', default: false },
    mix: { type: 'string', default: '0.9,0.09,0.01' },
    msgs: { type: 'string' },
  },
});
const seconds = Number(args.seconds);
const blockTimeMs = Number(args['block-time-ms']);
const log = (message: string) => process.stderr.write(`[bench:streams] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HOST = '127.0.0.1';
/** Seconds of steady state after the API delivered the pause's backlog, before the window opens. */
const CATCH_UP_SECONDS = 2;
/** Seconds a process gets to settle before its RSS is read. */
const SETTLE_SECONDS = 3;

async function freshDatabase(): Promise<string> {
  const name = 'ri_bench_streams';
  const admin = new pg.Client({ connectionString: args['admin-url'] });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(args['admin-url']!);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Chain {
  dbUrl: string;
  /** Waits until the indexer has committed the simulator's current head (after a pause). */
  caughtUp(): Promise<void>;
  indexer: ChildProcess;
  commits: CommitFollower;
  sample: ChainSample;
  stop(): Promise<void>;
}

async function startChain(): Promise<Chain> {
  const dbUrl = await freshDatabase();
  const sim = await startSimProcess([
    ...['--vm', 'move', '--live', '--head', '10', '--block-time-ms', String(blockTimeMs)],
    ...['--txs-per-block', args['txs-per-block']!, '--accounts', args.accounts!, '--fast-signatures'],
  ]);
  const indexerPort = await freePort();
  const indexer = spawnCli(
    [
      'indexer',
      '--rpc-url',
      sim.rpc,
      '--rest-url',
      sim.rest,
      '--database-url',
      dbUrl,
      '--port',
      String(indexerPort),
    ],
    {},
  );
  await waitForHttp(`http://${HOST}:${indexerPort}/health`, indexer);
  const commits = await followCommits(dbUrl);
  // Long enough for most of the keyring to have transacted.
  while (commits.height() < 60) await sleep(200);
  const sample = await sampleChain(dbUrl);
  const { accounts, msgTypes } = sample;
  log(
    `message types (share of txs): ${msgTypes.map((m, i) => `${m} ${(sample.typeShares[i]! * 100).toFixed(1)}%`).join(', ')}`,
  );
  writerTxMs = (windowStartMs) => {
    const gaps = commits.commits
      .filter((c) => c.notifiedMs >= windowStartMs)
      .map((c) => c.notifiedMs - c.updatedAtMs);
    return percentile(
      gaps.sort((a, b) => a - b),
      50,
    );
  };
  log(`chain at height ${commits.height()}: ${accounts.length} accounts, ${msgTypes.length} message types`);
  const caughtUp = async () => {
    const status = (await fetch(`${sim.rpc}/status`).then((r) => r.json())) as {
      result: { sync_info: { latest_block_height: string } };
    };
    const head = Number(status.result.sync_info.latest_block_height);
    while (commits.height() < head) await sleep(50);
  };
  return {
    dbUrl,
    caughtUp,
    indexer,
    commits,
    sample,
    stop: async () => {
      await commits.close();
      await stopChild(indexer);
      await sim.stop();
    },
  };
}

interface Server {
  pid: number;
  port: number;
  /**
   * Called once the idle subscribers are measured: starts the traffic and resolves when it is in
   * its steady state, with how long the server took to deliver the backlog of the pause (API runs).
   */
  go(group: ClientGroup, paths: string[]): Promise<number | undefined>;
  /** Delivery latency of one event: [vs commit, vs a lower-bound commit] in ms, or undefined if outside the window. */
  latencies(
    group: ClientGroup,
    windowStartMs: number,
  ): Promise<{ commit: number[]; lower: number[]; age: number[]; backlog: number }>;
  /** What the subscribers should have received in the window (API runs), from the database. */
  demand(paths: string[], window: { startMs: number; endMs: number }): Promise<Demand | undefined>;
  /** The API's own counts since it started: streams closed as slow, failed reads of its hub. */
  counters(): Promise<{ slowCloses: number; readFailures: number } | undefined>;
  stop(): Promise<void>;
}

async function startApi(chain: Chain, n: number): Promise<Server> {
  const port = await freePort();
  const child = spawnCli(['api', '--port', String(port), '--host', HOST], {
    DATABASE_URL: chain.dbUrl,
    API_STREAM_MAX_SUBSCRIBERS: String(Math.max(10_000, n)),
  });
  await waitForHttp(`http://${HOST}:${port}/health`, child);
  return {
    pid: child.pid!,
    port,
    go: async (group, paths) => {
      chain.indexer.kill('SIGCONT');
      await chain.caughtUp();
      const caughtUpMs = nowMs();
      await apiCaughtUp(chain.dbUrl, group, paths);
      const apiCatchUpSeconds = (nowMs() - caughtUpMs) / 1000;
      await sleep(CATCH_UP_SECONDS * 1000);
      return apiCatchUpSeconds;
    },
    latencies: (group, windowStartMs) => apiLatencies(chain, group, windowStartMs),
    counters: () => streamCounters(`http://${HOST}:${port}/metrics`),
    demand: (paths, window) => {
      const inWindow = chain.commits.commits.filter(
        (c) => c.notifiedMs >= window.startMs && c.notifiedMs <= window.endMs,
      );
      const before = chain.commits.commits.filter((c) => c.notifiedMs < window.startMs).at(-1);
      if (before === undefined || inWindow.length === 0) return Promise.resolve(undefined);
      const seconds = (window.endMs - window.startMs) / 1000;
      return streamDemand(chain.dbUrl, paths, {
        fromHeight: before.height,
        toHeight: inWindow.at(-1)!.height,
        seconds,
      });
    },
    stop: () => stopChild(child),
  };
}

/** Seconds the API gets to deliver the pause's backlog before the window opens regardless. */
const API_CATCH_UP_DEADLINE_S = 120;

/**
 * Waits until every open unfiltered stream has the last tx committed now: the API has written
 * the backlog of the pause, so the window measures its steady state, not that catch-up (whose
 * events would otherwise land in the window as events of heights committed before it).
 */
async function apiCaughtUp(dbUrl: string, group: ClientGroup, paths: string[]): Promise<void> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const { rows } = await db.query<{ s: string }>(
    `SELECT tx_sequence AS s FROM checkpoint WHERE stream = 'blocks'`,
  );
  await db.end();
  const head = Number(rows[0]?.s ?? 0);
  const unfiltered = paths.flatMap((p, i) => (p.includes('?') ? [] : [i]));
  const deadline = nowMs() + API_CATCH_UP_DEADLINE_S * 1000;
  const behind = () => unfiltered.filter((i) => !group.failedStreams.has(i) && group.lastIds[i]! < head);
  while (behind().length > 0) {
    if (nowMs() > deadline) {
      log(`the API did not deliver the pause's backlog in ${API_CATCH_UP_DEADLINE_S} s; measuring anyway`);
      return;
    }
    await sleep(50);
  }
}

async function apiLatencies(chain: Chain, group: ClientGroup, windowStartMs: number) {
  const { ids, atMs } = group.arrivals;
  const heights = new Map<number, number>();
  if (ids.length > 0) {
    const db = new pg.Client({ connectionString: chain.dbUrl });
    await db.connect();
    const { rows } = await db.query<{ s: string; h: string }>(
      'SELECT sequence AS s, height AS h FROM tx WHERE sequence BETWEEN $1 AND $2',
      [ids.reduce((a, b) => Math.min(a, b)), ids.reduce((a, b) => Math.max(a, b))],
    );
    await db.end();
    for (const r of rows) heights.set(Number(r.s), Number(r.h));
  }
  const commits = chain.commits.commits;
  const commitOf = (height: number) => firstCommit(commits, 'height', height);
  const commit: number[] = [];
  const lower: number[] = [];
  // Every event received in the window against its commit, whenever that was: how far behind.
  const age: number[] = [];
  // Events received in the window of heights committed before it: not in the window's demand.
  let backlog = 0;
  for (let i = 0; i < ids.length; i++) {
    const c = commitOf(heights.get(ids[i]!) ?? Infinity);
    if (c !== undefined) age.push(atMs[i]! - c.updatedAtMs);
    if (c !== undefined && c.notifiedMs < windowStartMs) backlog += 1;
    if (c === undefined || c.notifiedMs < windowStartMs) continue;
    commit.push(atMs[i]! - c.updatedAtMs);
    lower.push(atMs[i]! - c.notifiedMs);
  }
  return { commit, lower, age, backlog };
}

async function startCeiling(): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/stream/ceiling.ts', '--tick-ms', String(blockTimeMs)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      const m = /ceiling listening (\d+)/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error('the ceiling server exited')));
  });
  return {
    pid: child.pid!,
    port,
    go: async () => {
      child.kill('SIGUSR1');
      await sleep(1000);
      return undefined;
    },
    latencies: async (group, windowStartMs) => {
      const { ids, atMs } = group.arrivals;
      const out: number[] = [];
      for (let i = 0; i < ids.length; i++) if (ids[i]! >= windowStartMs) out.push(atMs[i]! - ids[i]!);
      return { commit: out, lower: out, age: out, backlog: 0 };
    },
    demand: () => Promise.resolve(undefined),
    counters: () => Promise.resolve(undefined),
    stop: () => stopChild(child),
  };
}

/** NOTIFY arrival minus the checkpoint's updated_at (the writer's transaction start), median in the window. */
let writerTxMs: (windowStartMs: number) => number = () => NaN;

const round = (x: number, digits = 1) => Number(x.toFixed(digits));

/** One measured run: idle memory, then `seconds` of traffic. Returns per-stream stats for the ceiling. */
async function measure(target: 'api' | 'ceiling', server: Server, paths: string[]) {
  await sleep(SETTLE_SECONDS * 1000);
  const rssBefore = rssKb(server.pid);
  const openStarted = performance.now();
  const group = await openStreams({ host: HOST, port: server.port }, paths);
  const openSeconds = (performance.now() - openStarted) / 1000;
  await sleep(SETTLE_SECONDS * 1000);
  const rssIdle = rssKb(server.pid);
  const apiCatchUpSeconds = await server.go(group, paths);
  const windowStartMs = nowMs();
  const cpuBefore = cpuMs(server.pid);
  const clientCpuBefore = (process.cpuUsage().user + process.cpuUsage().system) / 1000;
  // The bench's own event loop reads every socket: a stall of its own makes a stream look slow.
  const clientLoop = monitorEventLoopDelay({ resolution: 10 });
  clientLoop.enable();
  group.record(true);
  await sleep(seconds * 1000);
  group.record(false);
  clientLoop.disable();
  const cpuUsedMs = cpuMs(server.pid) - cpuBefore;
  const rssLive = rssKb(server.pid);
  const windowMs = nowMs() - windowStartMs;
  const events = group.stats.reduce((n, s) => n + s.events, 0);
  const bytes = group.stats.reduce((n, s) => n + s.bytes, 0);
  const { commit, lower, age, backlog } = await server.latencies(group, windowStartMs);
  const demand = await server.demand(paths, { startMs: windowStartMs, endMs: windowStartMs + windowMs });
  const counters = await server.counters();
  const clientCpuMs = (process.cpuUsage().user + process.cpuUsage().system) / 1000 - clientCpuBefore;
  group.close();
  commit.sort((a, b) => a - b);
  lower.sort((a, b) => a - b);
  age.sort((a, b) => a - b);
  const result = {
    bench: 'streams',
    target,
    subscribers: paths.length,
    opened: group.opened,
    failures: group.failures,
    ...(group.firstFailure ? { firstFailure: group.firstFailure.slice(0, 300) } : {}),
    // Seconds after the window opened (negative: while the API caught up the pause's backlog).
    ...(group.firstFailureAtMs
      ? { firstFailureAtS: round((group.firstFailureAtMs - windowStartMs) / 1000) }
      : {}),
    ...(counters ?? {}),
    // The ceiling's ids are send times, shared by the events of one tick: repeats mean nothing there.
    ...(target === 'api' ? { repeats: group.repeats } : {}),
    ...(target === 'api' && group.firstRepeat ? { firstRepeat: group.firstRepeat } : {}),
    openSeconds: round(openSeconds),
    ...(apiCatchUpSeconds === undefined ? {} : { apiCatchUpSeconds: round(apiCatchUpSeconds) }),
    seconds: round(windowMs / 1000),
    eventsPerSec: Math.round(events / (windowMs / 1000)),
    mbPerSec: round(bytes / (windowMs / 1000) / 1e6, 2),
    ...(demand ? { demandEventsPerSec: demand.eventsPerSec, demandMbPerSec: round(demand.mbPerSec, 2) } : {}),
    // Received of what the window's heights owe (eventsPerSec also counts backlogEvents: events of
    // heights committed before the window, delivered in it).
    ...(demand ? { demandEvents: demand.events, backlogEvents: backlog } : {}),
    latencySamples: commit.length,
    p50Ms: round(percentile(commit, 50)),
    p99Ms: round(percentile(commit, 99)),
    maxMs: round(commit.at(-1) ?? NaN),
    ...(target === 'api'
      ? {
          writerTxMsP50: round(writerTxMs(windowStartMs)),
          p50MsFromNotify: round(percentile(lower, 50)),
          p99MsFromNotify: round(percentile(lower, 99)),
        }
      : {}),
    ageP50Ms: round(percentile(age, 50)),
    ageP99Ms: round(percentile(age, 99)),
    cpuPercent: round((cpuUsedMs / windowMs) * 100),
    clientCpuPercent: round((clientCpuMs / windowMs) * 100),
    clientLoopDelayP99Ms: round(clientLoop.percentile(99) / 1e6),
    clientLoopDelayMaxMs: round(clientLoop.max / 1e6),
    rssNoneMb: round(rssBefore / 1024),
    rssIdleMb: round(rssIdle / 1024),
    rssLiveMb: round(rssLive / 1024),
    rssPerSubscriberKb: round((rssIdle - rssBefore) / paths.length, 2),
    // The machine is shared: the 1-minute load average says how contended the run was.
    loadAvg1: round(loadavg()[0]!),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return { group, windowMs };
}

async function main() {
  const sizes = args.subscribers!.split(',').map(Number);
  log(`ulimit -n must exceed the largest size (${Math.max(...sizes)}) + ~100 in this process and the API`);
  const chain = await startChain();
  try {
    for (const n of sizes) {
      const paths = subscriberPaths(n, chain.sample, args.mix!, args.msgs);
      chain.indexer.kill('SIGSTOP'); // idle memory is measured with nothing being committed
      const api = await startApi(chain, n);
      let measured: Awaited<ReturnType<typeof measure>>;
      try {
        measured = await measure('api', api, paths);
      } finally {
        await api.stop();
      }
      if (args['no-ceiling']) continue;
      const windowSeconds = measured.windowMs / 1000;
      const ceilingPaths = measured.group.stats.map(
        (s) =>
          `/c?rate=${(s.events / windowSeconds).toFixed(3)}&size=${s.events > 0 ? Math.round(s.bytes / s.events) : 0}`,
      );
      const ceiling = await startCeiling();
      try {
        await measure('ceiling', ceiling, ceilingPaths);
      } finally {
        await ceiling.stop();
      }
    }
  } finally {
    chain.indexer.kill('SIGCONT');
    await chain.stop();
  }
}

await main();
