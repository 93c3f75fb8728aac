import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliProcesses, type CliProcess } from '../helpers/cli-process.js';
import { createPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { needs, pgServerRequirement } from '../helpers/requirements.js';

const pgServer = await pgServerRequirement();
const SECRET = 's3cret-pw';
const NODE = { RPC_URL: 'http://127.0.0.1:1', REST_URL: 'http://127.0.0.1:1' };

/** What an operator sees when the database setting is wrong: one line naming which, never the password. */
describe.runIf(needs(pgServer))('database start-up errors', { timeout: 300_000 }, () => {
  let withPassword: PgCluster;
  let tlsOnly: PgCluster;
  const cli = useCliProcesses();
  beforeAll(async () => {
    [withPassword, tlsOnly] = await Promise.all([
      createPgCluster({ password: SECRET }),
      // Only TLS connections are allowed over TCP; this server has no certificate, so none is.
      createPgCluster({ hba: ['hostssl all all 127.0.0.1/32 trust'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([withPassword?.dispose(), tlsOnly?.dispose()]);
  });

  const expectOneLine = async (p: CliProcess, code: string, says: RegExp) => {
    const { code: exit } = await p.exited;
    expect(exit, p.lastLines()).toBe(2);
    const line = await p.waitForLine(`error [${code}]`);
    expect(line).toMatch(says);
    expect(p.lastLines()).not.toContain(SECRET);
    expect(p.lastLines()).not.toContain('wrong-pw');
  };

  it('wrong password', async () => {
    const url = withPassword.url().replace(SECRET, 'wrong-pw');
    await expectOneLine(
      cli(['indexer', '--port', '0'], { DATABASE_URL: url, ...NODE }),
      'db_auth_failed',
      /authentication failed for user "postgres", database "postgres" at 127\.0\.0\.1:\d+/,
    );
    await expectOneLine(
      cli(['api', '--port', '0'], { DATABASE_URL: url, CHAIN_ID: 'c', VM_TYPE: 'move' }),
      'db_auth_failed',
      /authentication failed/,
    );
  });

  it('missing database', async () => {
    await expectOneLine(
      cli(['indexer', '--port', '0'], { DATABASE_URL: withPassword.url('no_such_db'), ...NODE }),
      'db_missing',
      /database "no_such_db" at 127\.0\.0\.1:\d+: the database does not exist/,
    );
  });

  it('TLS required by the server', async () => {
    await expectOneLine(
      cli(['migrate'], { DATABASE_URL: tlsOnly.url() }),
      'db_rejected',
      /the server rejects user "postgres".*sslmode=require/,
    );
  });

  it('unreachable host: ingest waits (saying so in the log and /ready), the API answers 503, both stop on SIGTERM', async () => {
    const url = 'postgres://postgres@127.0.0.1:1/x';
    const indexer = cli(['indexer', '--port', '0'], { DATABASE_URL: url, ...NODE });
    expect(await indexer.waitForLine('database unreachable, waiting for it')).toContain('connection refused');
    const base = (await indexer.url()).replace('0.0.0.0', '127.0.0.1');
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { message: string }).message).toMatch(
      /database unavailable .*connection refused/,
    );
    indexer.kill('SIGTERM');
    expect((await indexer.exited).code, indexer.lastLines()).toBe(0);

    const api = cli(['api', '--port', '0', '--host', '127.0.0.1'], {
      DATABASE_URL: url,
      CHAIN_ID: 'c',
      VM_TYPE: 'move',
    });
    const address = JSON.parse(await api.waitForLine('"msg":"api listening"')) as { address: string };
    for (const route of ['/ready', '/indexer/block/v1/blocks/1', '/status']) {
      const res = await fetch(`${address.address}${route}`);
      expect(res.status, route).toBe(503);
      expect(await res.json()).toMatchObject({ code: 14 });
    }
    api.kill('SIGTERM');
    expect((await api.exited).code).toBe(0);
  });
});
