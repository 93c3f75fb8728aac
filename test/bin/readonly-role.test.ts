import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliProcesses } from '../helpers/cli-process.js';
import { createPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { needs, pgServerRequirement } from '../helpers/requirements.js';
import { useSimulators } from '../sim/helpers/sims.js';

const pgServer = await pgServerRequirement();

/** Least privilege: `api` runs as a role that can read every table and write none, whatever it sets. */
describe.runIf(needs(pgServer))('the read-only role from `migrate`', { timeout: 300_000 }, () => {
  const start = useSimulators();
  let cluster: PgCluster;
  const cli = useCliProcesses();
  beforeAll(async () => {
    cluster = await createPgCluster();
    await cluster.sql('CREATE DATABASE ri_ro');
  });
  afterAll(async () => {
    await cluster?.dispose();
  });

  it('prints its SQL, creates it, serves the API with it, and refuses every write', async () => {
    const printed = cli(['migrate', '--print-readonly-sql', 'ri_reader'], {
      DATABASE_URL: cluster.url('ri_ro'),
    });
    expect((await printed.exited).code).toBe(0);
    expect(printed.lastLines()).toContain('GRANT SELECT ON ALL TABLES IN SCHEMA public TO ri_reader;');

    const migrated = cli(
      ['migrate', '--create-readonly-role', 'ri_reader', '--readonly-password-env', 'RO_PW'],
      {
        DATABASE_URL: cluster.url('ri_ro'),
        RO_PW: 'reader-pw',
      },
    );
    expect((await migrated.exited).code, migrated.lastLines()).toBe(0);
    expect(migrated.lastLines()).not.toContain('reader-pw');

    // Tables created after the role (by the writer's migrations and ingest) are readable too.
    const { urls } = await start({ vm: 'move', head: 12, fastSignatures: true });
    const indexer = cli(['indexer', '--port', '0'], {
      DATABASE_URL: cluster.url('ri_ro'),
      RPC_URL: urls.rpc,
      REST_URL: urls.rest,
      UNTIL_HEIGHT: '12',
    });
    expect((await indexer.exited).code, indexer.lastLines()).toBe(0);

    const readerUrl = `postgres://ri_reader:reader-pw@127.0.0.1:${cluster.port}/ri_ro`;
    const api = cli(['api', '--port', '0', '--host', '127.0.0.1'], { DATABASE_URL: readerUrl });
    const { address } = JSON.parse(await api.waitForLine('"msg":"api listening"')) as { address: string };
    const block = await fetch(`${address}/indexer/block/v1/blocks/12`);
    expect(block.status).toBe(200);
    expect(((await block.json()) as { block: { height: string } }).block.height).toBe('12');
    api.kill('SIGTERM');
    expect((await api.exited).code).toBe(0);

    const reader = new pg.Client({ connectionString: readerUrl });
    await reader.connect();
    try {
      expect((await reader.query('SELECT count(*)::int AS n FROM block')).rows[0]).toEqual({ n: 12 });
      await reader.query('SET default_transaction_read_only = off');
      for (const write of [
        "INSERT INTO validator (operator_address, moniker) VALUES ('x', 'y')",
        'DELETE FROM block',
        'UPDATE checkpoint SET height = 0',
        'CREATE TABLE evil (x int)',
      ]) {
        await expect(reader.query(write), write).rejects.toMatchObject({ code: '42501' });
      }
    } finally {
      await reader.end();
    }
  });
});
