import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import type { DerivationName } from '../../src/ingest/derive/derivation.js';
import type { NodeRows } from '../../src/ingest/repair/node-rows.js';
import { abandonStageReindex, runStageReindex } from '../../src/ingest/repair/stage-reindex.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorUrls, VmType } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { routeAnswers } from '../api/route-answers.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { ingestFrom } from '../helpers/ingest.js';
import { openTestNodeRows } from '../helpers/repair.js';

/**
 * `reindex --stage` (docs/ingest.md §11.4) on each VM, a fresh index of the same chain as the
 * oracle: planted drift in a stage's rows (a changed balance, a holder gone, a changed internal tx,
 * a wrong holder count) is repaired by a rebuild killed after its first batch and run again, while
 * an API with its caches on keeps answering; every route class then answers byte for byte as the
 * fresh index does, and a rich-list page held before the swap is served with the new bytes after it.
 * Rich-list sources differ per VM (bank balances, fungible assets, ERC-20), internal txs are EVM's;
 * the rebuild's schema and the swap's locks differ by store.
 */
const HEAD = 14;
const RETRY = { baseMs: 5, capMs: 20 };

const stagesOf = (vm: VmType): DerivationName[] =>
  vm === 'evm' ? ['internal_tx', 'rich_list'] : ['rich_list'];

// Each VM once and each store once when both are in the run (docs/testing.md): PGlite takes EVM,
// the VM with both stages.
for (const factory of testDbFactories()) {
  for (const vm of heavySuiteVms(factory.name, 'evm')) {
    const stages = stagesOf(vm);
    describe(`reindex --stage (${vm}, ${factory.name})`, () => {
      let sim: Simulator;
      let urls: SimulatorUrls;
      let fresh: { db: Db; dispose(): Promise<void> };
      let drifted: { db: Db; dispose(): Promise<void> };
      let node: NodeRows;

      beforeAll(async () => {
        sim = createSimulator({
          vm,
          head: HEAD,
          chainId: `stage-${vm}`,
          rpcPort: 0,
          restPort: 0,
          jsonRpcPort: 0,
        });
        urls = await sim.listen();
        fresh = await factory.create();
        drifted = await factory.create();
        const on = { internalTx: vm === 'evm', richList: true };
        for (const db of [fresh.db, drifted.db])
          await ingestFrom({ db, vm, urls, untilHeight: HEAD, stages: on });
        node = await openTestNodeRows(drifted.db, urls);
      }, 180_000);

      afterAll(async () => {
        await node?.close();
        await fresh?.dispose();
        await drifted?.dispose();
        await sim?.close();
      });

      it('refuses a stage that never ran, and drops an unfinished rebuild on --abandon', async () => {
        if (vm !== 'evm') {
          await expect(
            runStageReindex(drifted.db, node, { stage: 'internal_tx', accountPrefix: 'init' }),
          ).rejects.toMatchObject({ code: 'stage_not_run' });
        }
        const stop = new AbortController();
        const first = await runStageReindex(drifted.db, node, {
          stage: 'rich_list',
          accountPrefix: 'init',
          batch: 5,
          retry: RETRY,
          signal: stop.signal,
          onBatch: () => stop.abort(),
        });
        expect(first.finished).toBe(false);
        expect(await abandonStageReindex(drifted.db, 'rich_list')).toBe(
          'dropped the reindex of the rich_list stage',
        );
        expect(await schemas(drifted.db)).toEqual([]);
        expect(await abandonStageReindex(drifted.db, 'rich_list')).toBe(
          'no reindex of the rich_list stage to drop',
        );
      }, 60_000);

      it('repairs planted drift through a rebuild killed after one batch: every route as a fresh index', async () => {
        const truth = await routeAnswers(fresh.db, sim, HEAD);
        expect(await routeAnswers(drifted.db, sim, HEAD)).toEqual(truth);
        const planted = await plantDrift(drifted.db, stages);
        const app = await createApiApp({
          options: loadApiOptions({ CHAIN_ID: `stage-${vm}`, VM_TYPE: vm }),
          db: drifted.db,
          logger: silentLogger(),
          metrics: createMetricsRegistry({ defaultMetrics: false }),
        });
        const get = (url: string) => app.inject({ method: 'GET', url });
        const page = `/indexer/richlist/v1/${encodeURIComponent(planted.denom)}?pagination.limit=1000`;
        const before = (await get(page)).body;
        expect((await get(page)).headers['x-cache']).toBe('hit');
        const drifty = await routeAnswers(drifted.db, sim, HEAD);
        expect(drifty).not.toEqual(truth);

        const statuses: number[] = [];
        let repairing = true;
        const reader = (async () => {
          while (repairing) {
            statuses.push((await get(page.replace('1000', '7'))).statusCode);
            // A read every few milliseconds: back to back, the reader took as much CPU as the rebuild.
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        })();
        const runs: { stage: DerivationName; heights: number; finished: boolean }[] = [];
        try {
          for (const stage of stages) {
            const stop = new AbortController();
            const plan = { stage, accountPrefix: 'init', batch: 4, retry: RETRY };
            const first = await runStageReindex(drifted.db, node, {
              ...plan,
              signal: stop.signal,
              onBatch: () => stop.abort(),
            });
            const resumed = await runStageReindex(drifted.db, node, plan);
            runs.push({ stage, heights: first.heights, finished: first.finished });
            runs.push({ stage, heights: first.heights + resumed.heights, finished: resumed.finished });
            expect(resumed.to).toBe(HEAD);
            expect(resumed.rows).toBeGreaterThan(0);
          }
        } finally {
          repairing = false;
          await reader;
        }
        // Each stage: the first run stopped early (after its first batch and the one it had
        // fetched meanwhile), the second derived the rest and no height again.
        for (const run of runs.filter((r) => !r.finished)) expect(run.heights).toBeGreaterThan(0);
        for (const run of runs.filter((r) => !r.finished)) expect(run.heights).toBeLessThan(HEAD);
        expect(runs.filter((r) => r.finished).map((r) => r.heights)).toEqual(stages.map(() => HEAD));
        expect(statuses.length).toBeGreaterThan(0);
        expect(new Set(statuses)).toEqual(new Set([200]));

        const after = (await get(page)).body;
        await app.close();
        expect(after).not.toBe(before);
        expect(after).toBe(await answerOf(fresh.db, sim, page));
        expect(await routeAnswers(drifted.db, sim, HEAD)).toEqual(truth);
        expect(await schemas(drifted.db)).toEqual([]);
        const jobs = await drifted.db.query('SELECT job FROM reindex_job');
        expect(jobs.rows).toEqual([]);
      }, 180_000);
    });
  }
}

/** The page's body from a database, as `routeAnswers` would give it. */
async function answerOf(db: Db, sim: Simulator, url: string): Promise<string> {
  const answers = await routeAnswers(db, sim, HEAD, [url]);
  return answers.get(url)!.split('\n').slice(1).join('\n');
}

/** Rebuild schemas left in the database. */
async function schemas(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE '%\\_reindex\\_%'",
  );
  return rows.map((r) => r.name);
}

/** Drift in the stages' rows: a holder's balance changed, another holder gone, a frame's JSON changed. */
async function plantDrift(db: Db, stages: DerivationName[]): Promise<{ denom: string }> {
  const { rows } = await db.query<{ denom: string }>(
    `SELECT denom FROM rich_list WHERE amount > 0 GROUP BY denom ORDER BY count(*) DESC, denom LIMIT 1`,
  );
  const denom = rows[0]!.denom;
  await db.query(
    `UPDATE rich_list SET amount = amount + 12345
      WHERE (denom, account_id) = (SELECT denom, account_id FROM rich_list WHERE denom = $1 AND amount > 0
                                     ORDER BY amount DESC, account_id LIMIT 1)`,
    [denom],
  );
  await db.query(
    `DELETE FROM rich_list
      WHERE (denom, account_id) = (SELECT denom, account_id FROM rich_list WHERE denom = $1 AND amount > 0
                                     ORDER BY amount, account_id LIMIT 1)`,
    [denom],
  );
  if (stages.includes('internal_tx')) {
    const frames = await db.query<{ n: number }>(
      `WITH changed AS (UPDATE evm_internal_tx SET data = '{"planted":true}'
                         WHERE sequence = (SELECT min(sequence) FROM evm_internal_tx) RETURNING 1)
       SELECT count(*)::int AS n FROM changed`,
    );
    expect(frames.rows[0]!.n).toBe(1);
    await db.query('UPDATE evm_internal_tx_account_counts SET txs = txs + 1');
  }
  return { denom };
}
