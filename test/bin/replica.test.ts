import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliProcesses } from '../helpers/cli-process.js';
import { createPgCluster, createStandby, type PgCluster } from '../helpers/pg-cluster.js';
import { needs, pgServerRequirement } from '../helpers/requirements.js';
import { useSimulators } from '../sim/helpers/sims.js';

const pgServer = await pgServerRequirement();
const HEAD = 40;
const ROUTES = [
  '/status',
  '/indexer/block/v1/blocks?pagination.limit=7',
  `/indexer/block/v1/blocks/${HEAD}`,
  '/indexer/tx/v1/txs?pagination.limit=20',
  '/indexer/tx/v1/txs/by_height/7',
];

/** Scale-out: one indexer writes the primary, an `api` reads a streaming replica. */
describe.runIf(needs(pgServer))('api on a streaming replica', { timeout: 300_000 }, () => {
  const start = useSimulators();
  let primary: PgCluster;
  let standby: PgCluster;
  const cli = useCliProcesses();
  const apiOn = async (env: Record<string, string>) => {
    const p = cli(['api', '--port', '0', '--host', '127.0.0.1', '--no-cache'], env);
    return (JSON.parse(await p.waitForLine('"msg":"api listening"')) as { address: string }).address;
  };
  beforeAll(async () => {
    primary = await createPgCluster();
    standby = await createStandby(primary);
  });
  afterAll(async () => {
    await standby?.dispose();
    await primary?.dispose();
  });

  it('answers what the primary answers once replay catches up, and shows its lag in /metrics', async () => {
    await primary.sql('CREATE DATABASE ri_rep');
    const { urls } = await start({ vm: 'move', head: HEAD, txsPerBlock: '0-8', fastSignatures: true });
    const indexer = cli(['indexer', '--port', '0'], {
      DATABASE_URL: primary.url('ri_rep'),
      RPC_URL: urls.rpc,
      REST_URL: urls.rest,
      UNTIL_HEIGHT: String(HEAD),
    });
    expect((await indexer.exited).code, indexer.lastLines()).toBe(0);

    const onPrimary = await apiOn({ DATABASE_URL: primary.url('ri_rep') });
    const onReplica = await apiOn({
      DATABASE_URL: primary.url('ri_rep'),
      DATABASE_READ_URL: standby.url('ri_rep'),
    });
    // Replay is asynchronous: wait for the replica to show the last height (a condition).
    for (;;) {
      const res = await fetch(`${onReplica}/status`).catch(() => undefined);
      if (res?.status === 200 && ((await res.json()) as { height: number }).height === HEAD) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const route of ROUTES) {
      const [a, b] = await Promise.all([fetch(`${onPrimary}${route}`), fetch(`${onReplica}${route}`)]);
      expect(b.status, route).toBe(200);
      expect(await b.text(), route).toBe(await a.text());
    }
    const metrics = await (await fetch(`${onReplica}/metrics`)).text();
    expect(metrics).toMatch(/^rollup_indexer_api_replica_lag_seconds \d+(\.\d+)?(e[-+]\d+)?$/m);
    // The replica refuses writes whatever the session says.
    await expect(standby.sql('CREATE TABLE t (x int)')).rejects.toMatchObject({ code: '25006' });
  });
});
