import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createIngestService } from '../../src/ingest/service.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry, type Registry } from '../../src/shared/metrics.js';
import pg from 'pg';
import { createPostgresDb, type Db } from '../../src/store/driver/db.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { simCliArgv } from '../../test/sim/helpers/cli.js';

export interface SimProcess {
  rpc: string;
  rest: string;
  jsonRpc: string | undefined;
  /** The simulator's process id (bench/sim/throughput reads its CPU time). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts `rollup-indexer sim` in its own process (so it does not share our event loop) and waits for its ready line. */
export async function startSimProcess(args: string[]): Promise<SimProcess> {
  const child: ChildProcess = spawn(process.execPath, simCliArgv(args), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (l) => {
      if (l.startsWith('sim ready')) resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`sim exited with ${code}`)));
  });
  const field = (name: string) => new RegExp(`${name}=(\\S+)`).exec(line)?.[1];
  const jsonRpc = field('json-rpc');
  return {
    rpc: field('rpc')!,
    rest: field('rest')!,
    jsonRpc: jsonRpc && jsonRpc !== '-' ? jsonRpc : undefined,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Peak resident set size of this process so far, in MB. */
export function peakRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * A simulated chain of `blocks` heights, `txs` per block (a count or a range), fast signatures,
 * in its own process; `extra` adds simulator flags.
 */
export function startBenchChain(vm: string, blocks: number, txs: string, extra: string[] = []) {
  return startSimProcess([
    '--vm',
    vm,
    '--head',
    String(blocks),
    '--txs-per-block',
    txs,
    '--fast-signatures',
    ...extra,
  ]);
}

/** What a bench may set beyond the defaults: the stages it runs and the registry it reads. */
export interface BenchIngestExtras {
  stages?: { internalTx?: boolean | undefined; richList?: boolean; nftIndexing?: boolean };
  registry?: Registry;
}

/** The ingest service on a simulated chain (Move unless `vm` says), quiet, as the benchmarks run it. */
export function benchIngestService(
  sim: SimProcess,
  db: Db,
  vm: 'move' | 'wasm' | 'evm' = 'move',
  extras: BenchIngestExtras = {},
) {
  return createIngestService({
    options: {
      chainId: undefined,
      vmType: vm,
      endpoints: { rpc: [sim.rpc], rest: [sim.rest], jsonRpc: sim.jsonRpc ? [sim.jsonRpc] : [] },
      maxConcurrentRequests: 16,
      accountPrefix: 'init',
      startHeight: undefined,
      ...extras.stages,
    },
    logger: silentLogger(),
    db,
    registry: extras.registry ?? createMetricsRegistry({ defaultMetrics: false }),
  });
}

/**
 * A benchmark's own database on the server of `adminUrl`, created once and reused (`reseed`
 * rebuilds it), migrated, and seeded by `seed` unless `isSeeded` says it already is. Returns its URL.
 */
export async function prepareBenchDatabase(options: {
  adminUrl: string;
  name: string;
  reseed: boolean;
  isSeeded(db: Db): Promise<boolean>;
  seed(db: Db): Promise<void>;
}): Promise<string> {
  const admin = new pg.Client({ connectionString: options.adminUrl });
  await admin.connect();
  const exists =
    (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.name])).rowCount === 1;
  if (exists && options.reseed) await admin.query(`DROP DATABASE ${options.name} WITH (FORCE)`);
  if (!exists || options.reseed) await admin.query(`CREATE DATABASE ${options.name}`);
  await admin.end();
  const url = new URL(options.adminUrl);
  url.pathname = `/${options.name}`;
  const db = createPostgresDb({ url: url.toString(), maxConnections: 1 });
  try {
    await migrate(db);
    if (!(await options.isSeeded(db))) await options.seed(db);
  } finally {
    await db.close();
  }
  return url.toString();
}

/**
 * User + system CPU seconds a live process has used (fields 14 and 15 of /proc/<pid>/stat, clock
 * ticks of 1/100 s). The command name (field 2) may hold spaces; the fields after its closing
 * parenthesis do not.
 */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The host's CPU, sampled every `everyMs` (Linux `/proc/stat`, all cores): `between(from, to)`
 * gives the mean busy fraction of the samples in that span (1 = every core busy) and the part of
 * them in which the host was saturated (≥ 95 % busy).
 */
export function followHostCpu(everyMs = 100) {
  const samples: Array<[at: number, busy: number]> = [];
  const read = () => {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = ticks[3]! + ticks[4]!; // idle + iowait
    return { idle, total: ticks.reduce((a, b) => a + b, 0) };
  };
  let last = read();
  const timer = setInterval(() => {
    const now = read();
    if (now.total > last.total)
      samples.push([Date.now(), 1 - (now.idle - last.idle) / (now.total - last.total)]);
    last = now;
  }, everyMs);
  timer.unref();
  return {
    between(from: number, to: number) {
      const busy = samples.filter(([at]) => at > from && at <= to).map(([, b]) => b);
      const ofAll = (n: number) => Math.round((n / Math.max(busy.length, 1)) * 100) / 100;
      return {
        meanBusy: ofAll(busy.reduce((a, b) => a + b, 0)),
        saturatedShare: ofAll(busy.filter((b) => b >= 0.95).length),
      };
    },
    stop: () => clearInterval(timer),
  };
}

/** A fresh PostgreSQL database `name` beside `adminUrl`'s for `fn`, dropped afterwards. */
export async function withFreshDatabase<T>(
  adminUrl: string,
  name: string,
  fn: (url: string) => Promise<T>,
): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
