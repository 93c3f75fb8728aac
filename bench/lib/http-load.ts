/**
 * HTTP load helpers shared by the API benchmarks (api, nft-api, richlist-api): the API as a child
 * process, load runs (wrk or autocannon, see load-client.ts) with the API's CPU share, and the
 * bare-transfer ceiling.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { loadClient } from './load-client.js';

export interface RouteSpec {
  name: string;
  /** Fixed path, or a generator for per-request variation. */
  path: string | (() => string);
  kind: 'single' | 'list';
}

export async function startApi(url: string, cache: boolean, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/bin/cli.ts',
      'api',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      ...(cache ? [] : ['--no-cache']),
    ],
    {
      env: { ...process.env, DATABASE_READ_URL: url, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  // Up to 2 minutes: on a loaded host (the scale build's priority) tsx alone takes over 20 s to load.
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
  }
  child.kill('SIGTERM');
  throw new Error('api did not start');
}

export async function stopApi(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * The machine's ceiling for a body of this size: a bare node:http server answering a ready
 * Buffer (no routing, no database), loaded by the same client. A route cannot beat it here.
 */
export async function transferCeiling(kb: number, port: number, seconds: number, connections: number) {
  const script =
    `const body = Buffer.alloc(${kb * 1024}, 97);` +
    `require('node:http').createServer((q, r) => { r.writeHead(200, { 'content-length': body.length }); r.end(body); })` +
    `.listen(${port}, '127.0.0.1', () => console.log('ready'));`;
  const server = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => server.stdout?.once('data', resolve));
  try {
    const result = await runRoute(
      server,
      port,
      { name: `bare_http_${kb}kb`, path: '/', kind: 'list' },
      seconds,
      connections,
    );
    const { route, client, reqPerSec, p50Ms, p99Ms, maxMs, mbPerSec, apiCores } = result;
    return { route, client, reqPerSec, p50Ms, p99Ms, maxMs, mbPerSec, serverCores: apiCores };
  } finally {
    await stopApi(server);
  }
}

/** CPU seconds a process has used so far (Linux /proc; the API child's share is reported per route). */
export async function cpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks
}

/**
 * CPU of the PostgreSQL backends serving one database (the API's pool sessions), read from
 * /proc/<pid>/stat: the server runs on this host. A backend that exits during a run takes its
 * CPU with it (the API's pool keeps its sessions while it is busy, so this is rare).
 */
export interface BackendCpu {
  /** CPU seconds per backend pid, now. */
  snapshot(): Promise<Map<number, number>>;
  close(): Promise<void>;
}

export async function backendCpu(url: string): Promise<BackendCpu> {
  const client = new pg.Client({ connectionString: url, application_name: 'bench-cpu-probe' });
  await client.connect();
  return {
    async snapshot() {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      const cpu = new Map<number, number>();
      for (const { pid } of rows) {
        const seconds = await cpuSeconds(pid);
        // A backend that exited since the query has no /proc entry left to read.
        if (Number.isFinite(seconds)) cpu.set(pid, seconds);
      }
      return cpu;
    },
    close: () => client.end(),
  };
}

/** CPU seconds the backends used between two snapshots (a backend new in `after` counts whole). */
export function backendCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/**
 * CPU seconds of the backends of `url`'s database from `begin()` to `usedSeconds()`, read every
 * `everyMs` so a backend that exits in between (an idle pool connection) keeps its last reading.
 */
export async function followBackends(url: string, everyMs = 1000) {
  const probe = await backendCpu(url);
  let before = new Map<number, number>();
  const seen = new Map<number, number>();
  const sample = async () => {
    for (const [pid, seconds] of await probe.snapshot()) seen.set(pid, seconds);
  };
  const timer = setInterval(() => void sample().catch(() => undefined), everyMs);
  return {
    /** Starts the count; what backends that exited before it used is not counted. */
    begin: async () => {
      seen.clear();
      before = await probe.snapshot();
    },
    usedSeconds: async () => {
      await sample();
      return backendCpuBetween(before, seen);
    },
    close: async () => {
      clearInterval(timer);
      await probe.close();
    },
  };
}

/** Load before each measured run, not counted (JSON output: settings.warmupSeconds). */
export const WARMUP_SECONDS = 3;

/** The load generator every run of this process uses (see load-client.ts). */
const client = loadClient();

export async function runRoute(
  api: ChildProcess,
  port: number,
  spec: RouteSpec,
  seconds: number,
  connections: number,
  encoding = 'identity',
  database?: BackendCpu,
) {
  const load = (duration: number) =>
    client.run({
      base: `http://127.0.0.1:${port}`,
      path: spec.path,
      connections,
      seconds: duration,
      // Browsers and fetch() ask for compression; the figures are without (identity).
      headers: encoding !== 'identity' ? { 'accept-encoding': encoding } : {},
    });
  // Steady state is what is measured: the route's code is compiled, every pooled connection has
  // prepared its statements and the pages are in PostgreSQL's buffers before the clock starts.
  await load(WARMUP_SECONDS);
  const cpuBefore = await cpuSeconds(api.pid);
  const dbBefore = await database?.snapshot();
  const result = await load(seconds);
  const apiCpu = (await cpuSeconds(api.pid)) - cpuBefore;
  const dbCpu = dbBefore && database ? backendCpuBetween(dbBefore, await database.snapshot()) : undefined;
  const requests = result.reqPerSec * seconds;
  const perRequestUs = (cpu: number) => (requests > 0 ? Math.round((cpu * 1e6) / requests) : 0);
  return {
    route: spec.name,
    client: client.name,
    reqPerSec: Math.round(result.reqPerSec),
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    maxMs: result.maxMs,
    errors: result.errors,
    non2xx: result.non2xx,
    responseKb: result.reqPerSec > 0 ? Math.round(result.bytesPerSec / result.reqPerSec / 1024) : 0,
    mbPerSec: Math.round(result.bytesPerSec / 1e6),
    /** Cores the API process used (the client and PostgreSQL share the same machine). */
    apiCores: Math.round((apiCpu / seconds) * 100) / 100,
    /** API process CPU per answered request (user + system, 10 ms ticks summed over the run). */
    apiCpuUsPerReq: perRequestUs(apiCpu),
    /** PostgreSQL backend CPU per request, when the database's backends are watched. */
    ...(dbCpu === undefined
      ? {}
      : {
          dbCores: Math.round((dbCpu / seconds) * 100) / 100,
          dbCpuUsPerReq: perRequestUs(dbCpu),
        }),
  };
}

/**
 * Each route in turn against one `rollup-indexer api` (cache off) on `url`, then the bare transfer
 * ceiling for the body size of `ceilingRoute` (default: the largest body seen); `log` tells
 * progress on stderr.
 */
export async function runRoutes(
  url: string,
  specs: RouteSpec[],
  o: {
    port: number;
    seconds: number;
    connections: number;
    ceilingRoute?: string;
    log: (message: string) => void;
  },
) {
  const results: Awaited<ReturnType<typeof runRoute>>[] = [];
  const child = await startApi(url, false, o.port);
  const database = await backendCpu(url);
  try {
    for (const spec of specs) {
      o.log(`${spec.name} ...`);
      results.push(await runRoute(child, o.port, spec, o.seconds, o.connections, 'identity', database));
    }
  } finally {
    await database.close();
    await stopApi(child);
  }
  const sized = results.find((r) => r.route === o.ceilingRoute);
  const bodyKb = sized?.responseKb ?? results.reduce((kb, r) => Math.max(kb, r.responseKb), 0);
  o.log(`transfer ceiling for ${bodyKb} KB bodies ...`);
  const ceiling = bodyKb > 0 ? await transferCeiling(bodyKb, o.port, o.seconds, o.connections) : null;
  return { results, ceiling };
}
