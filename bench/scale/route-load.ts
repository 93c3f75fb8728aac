/**
 * One route under wrk (bench/lib/load-client.ts) with the CPU it cost on both sides: the API process and
 * the PostgreSQL backends serving this database. CPU per request moves far less with other load on
 * the host than latency does, so it is what compares best between two sizes measured hours apart.
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { cpuSeconds, WARMUP_SECONDS, type RouteSpec } from '../lib/http-load.js';
import { loadClient } from '../lib/load-client.js';

const client = loadClient();

/** CPU seconds of every backend connected to the database (the API's pool, once warm). */
async function backendsCpu(admin: pg.Client, pids?: number[]): Promise<{ pids: number[]; seconds: number }> {
  const ids =
    pids ??
    (
      await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
    ).rows.map((r) => r.pid);
  const each = await Promise.all(ids.map((pid) => cpuSeconds(pid)));
  return { pids: ids, seconds: each.reduce((a, b) => a + b, 0) };
}

export async function loadRouteWithCpu(o: {
  url: string;
  api: ChildProcess;
  port: number;
  spec: RouteSpec;
  seconds: number;
  connections: number;
}) {
  const load = (seconds: number) =>
    client.run({
      base: `http://127.0.0.1:${o.port}`,
      path: o.spec.path,
      connections: o.connections,
      seconds,
      headers: {},
    });
  const admin = new pg.Client({ connectionString: o.url });
  await admin.connect();
  try {
    // Warm: code compiled, the pool's connections open, their statements prepared, pages cached.
    await load(WARMUP_SECONDS);
    const dbBefore = await backendsCpu(admin);
    const apiBefore = await cpuSeconds(o.api.pid);
    const r = await load(o.seconds);
    const apiCpu = (await cpuSeconds(o.api.pid)) - apiBefore;
    const dbCpu = (await backendsCpu(admin, dbBefore.pids)).seconds - dbBefore.seconds;
    const requests = r.reqPerSec * o.seconds;
    const perRequestMs = (cpu: number) => (requests > 0 ? Math.round((cpu / requests) * 1e5) / 100 : 0);
    return {
      route: o.spec.name,
      client: client.name,
      reqPerSec: Math.round(r.reqPerSec),
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      maxMs: r.maxMs,
      errors: r.errors,
      non2xx: r.non2xx,
      responseKb: r.reqPerSec > 0 ? Math.round(r.bytesPerSec / r.reqPerSec / 1024) : 0,
      apiCpuMsPerRequest: perRequestMs(apiCpu),
      dbCpuMsPerRequest: perRequestMs(dbCpu),
    };
  } finally {
    await admin.end();
  }
}
