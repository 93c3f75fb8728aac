/**
 * The HTTP load generators the API benchmarks drive: wrk when it is on PATH (`apt-get install wrk`),
 * autocannon (a dev dependency) otherwise; BENCH_CLIENT=wrk|autocannon picks one. On a 2-core
 * machine the client's CPU is taken from the API and PostgreSQL being measured, and wrk (C, one
 * thread) needs a fraction of what autocannon (JavaScript, in the bench process) does per request.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export interface LoadRun {
  base: string;
  /** A fixed path, or a generator for per-request variation. */
  path: string | (() => string);
  connections: number;
  seconds: number;
  headers: Record<string, string>;
}

export interface LoadResult {
  reqPerSec: number;
  bytesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Socket errors and timeouts. */
  errors: number;
  non2xx: number;
}

export interface LoadClient {
  name: 'wrk' | 'autocannon';
  run(load: LoadRun): Promise<LoadResult>;
}

export function loadClient(requested = process.env.BENCH_CLIENT): LoadClient {
  const name = requested ?? (onPath('wrk') ? 'wrk' : 'autocannon');
  if (name === 'wrk') return { name, run: runWrk };
  if (name === 'autocannon') return { name, run: runAutocannon };
  throw new Error(`BENCH_CLIENT must be wrk or autocannon, not "${name}"`);
}

function onPath(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk prints its version and exits 1; only a missing binary is "not there".
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** wrk cannot call back into JavaScript: generated paths are drawn up front and cycled in Lua. */
const GENERATED_PATHS = 2_000;

async function runWrk(load: LoadRun): Promise<LoadResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ri-wrk-'));
  try {
    const script = path.join(dir, 'load.lua');
    await writeFile(script, wrkScript(load.path));
    const fixed = typeof load.path === 'string' ? load.path : '/';
    const headerArgs = Object.entries(load.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const { stdout } = await promisify(execFile)('wrk', [
      ...['-t', '1', '-c', String(load.connections), '-d', `${load.seconds}s`, '--timeout', '10s'],
      ...headerArgs,
      ...['-s', script, `${load.base}${fixed}`],
    ]);
    const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'));
    if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
    const r = JSON.parse(line) as Record<string, number>;
    const perSecond = (n: number) => (n / r.durationUs!) * 1e6;
    return {
      reqPerSec: perSecond(r.requests!),
      bytesPerSec: perSecond(r.bytes!),
      p50Ms: r.p50Us! / 1000,
      p99Ms: r.p99Us! / 1000,
      maxMs: r.maxUs! / 1000,
      errors: r.socketErrors! + r.timeouts!,
      non2xx: r.non2xx!,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function wrkScript(route: string | (() => string)): string {
  const request =
    typeof route === 'string'
      ? ''
      : [
          `local paths = {${Array.from({ length: GENERATED_PATHS }, () => JSON.stringify(route())).join(',')}}`,
          'local n = 0',
          'request = function() n = n % #paths + 1; return wrk.format(nil, paths[n]) end',
        ].join('\n');
  return `${request}
done = function(s, latency, _)
  local e = s.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bytes":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"socketErrors":%d,"timeouts":%d,"non2xx":%d}\\n',
    s.requests, s.duration, s.bytes, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect + e.read + e.write, e.timeout, e.status))
end
`;
}

/** The part of autocannon's API used here (the package ships no types). */
interface AutocannonResult {
  requests: { average: number };
  throughput: { average: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

async function runAutocannon(load: LoadRun): Promise<LoadResult> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const route = load.path;
  const result = await autocannon({
    url: `${load.base}${typeof route === 'string' ? route : route()}`,
    connections: load.connections,
    duration: load.seconds,
    headers: load.headers,
    ...(typeof route === 'string'
      ? {}
      : { requests: [{ setupRequest: (req: { path: string }) => ({ ...req, path: route() }) }] }),
  });
  return {
    reqPerSec: result.requests.average,
    bytesPerSec: result.throughput.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}
