import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/store/driver/db.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorUrls } from '../../src/sim/types.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { createPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { needs, pgServerRequirement } from '../helpers/requirements.js';
import { expectIngestMatchesTruth } from '../helpers/truth.js';
import { expectRichListMatchesTruth, stageHeight } from '../helpers/truth-rich-list.js';

/** Indexed before the outage. */
const FIRST_HEAD = 60;
/** Served after it: 250 blocks left to commit, two commits of the default 200 at most. */
const SECOND_HEAD = 310;
/** Where the run after the SIGTERM stops: resuming from the checkpoint shows in its first commit. */
const RESUMED_HEAD = FIRST_HEAD + 50;
const pgServer = await pgServerRequirement();

/** The same deterministic chain, served up to `head` on fixed ports (a restart keeps the URLs). */
async function serveChain(
  head: number,
  ports?: SimulatorUrls,
): Promise<{ sim: Simulator; urls: SimulatorUrls }> {
  const port = (url: string | undefined) => (url ? Number(new URL(url).port) : 0);
  const sim = createSimulator({
    vm: 'move',
    head,
    txsPerBlock: '0-4',
    fastSignatures: true,
    rpcPort: port(ports?.rpc),
    restPort: port(ports?.rest),
  });
  return { sim, urls: await sim.listen() };
}

/**
 * Requests one after another (four at a time) until stopped; counts answers by status (0 = no
 * answer, -1 = an answer cut off mid-body). Every failure is kept with what was seen of it.
 */
function apiLoad(base: string): { stop(): Promise<{ seen: Map<number, number>; failures: string[] }> } {
  const seen = new Map<number, number>();
  const failures: string[] = [];
  let running = true;
  const request = async (path: string): Promise<number> => {
    const at = new Date().toISOString();
    let res: Response;
    try {
      res = await fetch(`${base}${path}`);
    } catch (err) {
      failures.push(`${at} ${path}: no answer: ${String(err)} (${String((err as Error).cause)})`);
      return 0;
    }
    try {
      const body = (await res.json()) as { code?: number };
      // Every non-200 is the JSON error model.
      return res.status === 200 || typeof body.code === 'number' ? res.status : -res.status;
    } catch (err) {
      const headers = JSON.stringify([...res.headers]);
      failures.push(
        `${at} ${path}: ${res.status} ${headers} cut off: ${String(err)} (${String((err as Error).cause)})`,
      );
      return -1;
    }
  };
  const worker = async (i: number) => {
    for (let n = 0; running; n++) {
      const status = await request(
        n % 2 ? '/status' : `/indexer/tx/v1/txs?pagination.limit=5&pagination.offset=${i}`,
      );
      seen.set(status, (seen.get(status) ?? 0) + 1);
    }
  };
  const workers = [0, 1, 2, 3].map(worker);
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      return { seen, failures };
    },
  };
}

/**
 * PostgreSQL stops while the indexer has blocks to commit, and its backends are terminated
 * mid-commit later: the process stays up, waits, resumes by itself, and the database equals the
 * truth. Every step waits for a condition (a log line, a height), never for a delay.
 */
describe.runIf(needs(pgServer))('ingest survives the database going away', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await createPgCluster();
  });
  afterAll(async () => cluster?.dispose());

  // On `start` only: its ingest is `indexer`'s (one ingest process), with the read API beside on
  // a pool of its own; `indexer` meets the outage in the SIGTERM test below.
  it(
    'start: a PostgreSQL restart and terminated backends lose and duplicate nothing',
    { timeout: 300_000 },
    async () => {
      const database = 'ri_restart_start';
      await cluster.sql(`CREATE DATABASE ${database}`);
      let { sim, urls } = await serveChain(FIRST_HEAD);
      let cli: CliProcess | undefined;
      let load: ReturnType<typeof apiLoad> | undefined;
      try {
        cli = startCli(['start', '--port', '0'], {
          DATABASE_URL: cluster.url(database),
          RPC_URL: urls.rpc,
          REST_URL: urls.rest,
          VM_TYPE: 'move',
        });
        await cli.waitForHeight(FIRST_HEAD);
        load = apiLoad((await cli.url()).replace('0.0.0.0', '127.0.0.1'));

        // The database goes away; the node then has new blocks, which cannot be committed.
        await cluster.stop();
        await sim.close();
        ({ sim, urls } = await serveChain(SECOND_HEAD, urls));
        await cli.waitForLine('database unavailable, retrying the commit');
        const api = (await cli.url()).replace('0.0.0.0', '127.0.0.1');
        const res = await fetch(`${api}/indexer/block/v1/blocks/1`);
        expect(res.status).toBe(503);
        expect(await res.json()).toMatchObject({ code: 14 });
        await cluster.start();
        await cli.waitForLine('database is back; commit done');

        // Connections killed under the writer, commit after commit.
        for (let i = 0; i < 3; i++) {
          await cluster.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'rollup-indexer' AND pid <> pg_backend_pid()",
          );
        }
        await cli.waitForHeight(SECOND_HEAD);
        expect((await fetch(`${api}/indexer/block/v1/blocks/${SECOND_HEAD}`)).status).toBe(200);
        // Under steady requests through the outage: only 200s and 503 JSON, never a 500 or a reset.
        const { seen, failures } = await load.stop();
        expect(
          [...seen.keys()].filter((s) => s !== 200 && s !== 503),
          `${JSON.stringify([...seen])}\n${failures.join('\n')}\n${cli.lastLines()}`,
        ).toEqual([]);
        expect(seen.get(503)).toBeGreaterThan(0);
        expect(seen.get(200)).toBeGreaterThan(0);
        cli.kill('SIGTERM');
        expect((await cli.exited).code, cli.lastLines()).toBe(0);

        const db = createPostgresDb({ url: cluster.url(database) });
        try {
          await expectIngestMatchesTruth(db, sim, SECOND_HEAD);
          // The rich-list stage waited the outage out too; it may lag the blocks when stopped.
          await expectRichListMatchesTruth(db, sim, await stageHeight(db, 'rich_list'));
        } finally {
          await db.close();
        }
      } finally {
        await load?.stop();
        cli?.kill('SIGKILL');
        await sim.close();
      }
    },
  );

  it(
    'SIGTERM while waiting for the database stops at once; the next run resumes from the checkpoint',
    { timeout: 300_000 },
    async () => {
      await cluster.sql('CREATE DATABASE ri_restart_sigterm');
      const url = cluster.url('ri_restart_sigterm');
      let { sim, urls } = await serveChain(FIRST_HEAD);
      const env = () => ({ DATABASE_URL: url, RPC_URL: urls.rpc, REST_URL: urls.rest, VM_TYPE: 'move' });
      try {
        const first = startCli(['indexer', '--port', '0'], env());
        await first.waitForHeight(FIRST_HEAD);
        await cluster.stop();
        await sim.close();
        ({ sim, urls } = await serveChain(SECOND_HEAD, urls));
        await first.waitForLine('database unavailable, retrying the commit');
        first.kill('SIGTERM');
        expect((await first.exited).code, first.lastLines()).toBe(0);
        expect(first.lastLines()).toContain(`stopped at height ${FIRST_HEAD}`);

        await cluster.start();
        const second = startCli(['indexer', '--port', '0'], { ...env(), UNTIL_HEIGHT: String(RESUMED_HEAD) });
        expect((await second.exited).code, second.lastLines()).toBe(0);
        const db = createPostgresDb({ url });
        try {
          await expectIngestMatchesTruth(db, sim, RESUMED_HEAD);
          await expectRichListMatchesTruth(db, sim, await stageHeight(db, 'rich_list'));
        } finally {
          await db.close();
        }
      } finally {
        await sim.close();
      }
    },
  );
});
