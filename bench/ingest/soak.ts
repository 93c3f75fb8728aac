/**
 * Soak (not part of `npm test`): `rollup-indexer start` follows a live simulator with node faults
 * on, serves a steady mix of API requests, and lives through one PostgreSQL restart in the middle;
 * at the end the database must equal the simulator's ground truth. Prints one JSON line.
 *
 *   npx tsx bench/ingest/soak.ts [--minutes 10] [--rate 50] [--block-time-ms 200]
 *
 * Needs the PostgreSQL server binaries (a private cluster on a free port; the shared server is
 * not touched).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createSimulator } from '../../src/sim/simulator.js';
import { createPostgresDb } from '../../src/store/driver/db.js';
import { startCli, type CliProcess } from '../../test/helpers/cli-process.js';
import { createPgCluster } from '../../test/helpers/pg-cluster.js';
import { expectIngestMatchesTruth } from '../../test/helpers/truth.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '50' },
    'block-time-ms': { type: 'string', default: '200' },
  },
});
const durationMs = Number(values.minutes) * 60_000;
const ratePerSecond = Number(values.rate);
const blockTimeMs = Number(values['block-time-ms']);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const rssMb = async (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function metricsHeight(base: string): Promise<number> {
  const text = await fetch(`${base}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  return Number(/^rollup_indexer_height (\d+)/m.exec(text)?.[1] ?? 0);
}

/** A steady request mix: status, block pages, a block, tx pages, txs of a height, a tx by hash. */
function routeFor(i: number, head: number, sampleHash: string | undefined): string {
  const h = 1 + ((i * 7919) % Math.max(1, head - 1));
  const routes = [
    '/status',
    '/indexer/block/v1/blocks?pagination.limit=20',
    `/indexer/block/v1/blocks/${h}`,
    '/indexer/tx/v1/txs?pagination.limit=20',
    `/indexer/tx/v1/txs/by_height/${h}`,
    sampleHash ? `/indexer/tx/v1/txs/${sampleHash}` : '/status',
  ];
  return routes[i % routes.length]!;
}

/** Time from the database's return to the next height committed. */
async function ingestMovesAgain(base: string, restart: { at: number; ingestBackMs?: number }): Promise<void> {
  const before = await metricsHeight(base);
  while ((await metricsHeight(base)) <= before) await new Promise((r) => setTimeout(r, 20));
  restart.ingestBackMs = Date.now() - restart.at;
}

async function main(): Promise<void> {
  const cluster = await createPgCluster();
  await cluster.sql('CREATE DATABASE ri_soak');
  const sim = createSimulator({
    vm: 'move',
    head: 100,
    live: true,
    blockTimeMs,
    txsPerBlock: '0-12',
    fastSignatures: true,
    // No hanging requests: each would cost the node timeout (30 s, not configurable yet) and
    // only measure that; test/ingest/faults.test.ts covers them with a short timeout.
    faults: '5xx=0.02,429=0.01,reset=0.01,latency=2,lag=1,shortpage=0.1',
    rpcPort: 0,
    restPort: 0,
  });
  const urls = await sim.listen();
  let app: CliProcess | undefined;
  try {
    app = startCli(['start', '--port', '0'], {
      DATABASE_URL: cluster.url('ri_soak'),
      RPC_URL: urls.rpc,
      REST_URL: urls.rest,
      LOG_LEVEL: 'warn',
      // Every request reaches the database: a cached 200 would hide an outage.
      API_CACHE: 'false',
    });
    const base = (await app.url()).replace('0.0.0.0', '127.0.0.1');
    await app.waitForLine('API listening');
    const pid = app.child.pid!;
    const rssStart = await rssMb(pid);
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    const lagBlocks: number[] = [];
    const started = Date.now();
    let restart: { at: number; ingestBackMs?: number; apiBackMs?: number } | undefined;
    let sampleHash: string | undefined;

    let indexed = 0;
    const sampler = setInterval(() => {
      void metricsHeight(base).then((h) => {
        if (h === 0) return;
        indexed = h;
        lagBlocks.push(Math.max(0, sim.head() - h));
      });
    }, 1000);
    let i = 0;
    while (Date.now() - started < durationMs) {
      const due = started + (i * 1000) / ratePerSecond;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const route = routeFor(i++, indexed, sampleHash);
      const t0 = performance.now();
      void fetch(`${base}${route}`)
        .then(async (res) => {
          const body = await res.text();
          latencies.push(performance.now() - t0);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200 && route.includes('/txs?'))
            sampleHash ??= /"txhash":"([0-9A-F]{64})"/.exec(body)?.[1];
          if (restart && restart.apiBackMs === undefined && res.status === 200 && Date.now() > restart.at)
            restart.apiBackMs = Date.now() - restart.at;
        })
        .catch(() => statuses.set(0, (statuses.get(0) ?? 0) + 1));
      if (!restart && Date.now() - started > durationMs / 2) {
        // One database restart in the middle, timed from the moment it accepts connections again.
        await cluster.stop();
        await cluster.start();
        restart = { at: Date.now() };
        void ingestMovesAgain(base, restart);
      }
    }
    clearInterval(sampler);
    const rssEnd = await rssMb(pid);
    app.kill('SIGTERM');
    const { code } = await app.exited;
    const db = createPostgresDb({ url: cluster.url('ri_soak') });
    let truth = 'equal';
    let height = 0;
    try {
      height = Number(
        (await db.query<{ height: number }>("SELECT height FROM checkpoint WHERE stream = 'blocks'")).rows[0]
          ?.height ?? 0,
      );
      await expectIngestMatchesTruth(db, sim, height).catch(
        (err: Error) => (truth = `DIFFERS: ${err.message}`),
      );
    } finally {
      await db.close();
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const served = latencies.length;
    const errors = [...statuses].filter(([s]) => s === 0 || s >= 500).reduce((n, [, c]) => n + c, 0);
    const lag = [...lagBlocks].sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        bench: 'soak',
        minutes: Number(values.minutes),
        rate_per_s: ratePerSecond,
        block_time_ms: blockTimeMs,
        requests: served,
        statuses: Object.fromEntries(statuses),
        error_rate: served ? errors / served : 0,
        p50_ms: Math.round(percentile(sorted, 0.5) * 10) / 10,
        p99_ms: Math.round(percentile(sorted, 0.99) * 10) / 10,
        rss_mb_start: Math.round(rssStart),
        rss_mb_end: Math.round(rssEnd),
        ingest_lag_blocks_p50: percentile(lag, 0.5),
        ingest_lag_blocks_p99: percentile(lag, 0.99),
        ingest_lag_s_p99: (percentile(lag, 0.99) * blockTimeMs) / 1000,
        db_restart_ingest_recovery_ms: restart?.ingestBackMs ?? null,
        db_restart_api_recovery_ms: restart?.apiBackMs ?? null,
        final_height: height,
        exit_code: code,
        database_vs_truth: truth,
      }),
    );
  } finally {
    app?.kill('SIGKILL');
    await sim.close();
    await cluster.dispose();
  }
}

await main();
