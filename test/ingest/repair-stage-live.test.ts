import { describe, expect, it } from 'vitest';
import type { DerivationName } from '../../src/ingest/derive/derivation.js';
import { runStageReindex } from '../../src/ingest/repair/stage-reindex.js';
import { runVerify } from '../../src/ingest/repair/verify.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { followSimulator, ingestFrom } from '../helpers/ingest.js';
import { openTestNodeRows } from '../helpers/repair.js';

/**
 * `reindex --stage` beside a running indexer on a live chain (docs/ingest.md §11.4, steps 3-5): the
 * served stages keep moving (a block a second) while the rebuild runs, which catches up with them
 * (in more rounds when they moved on) before it swaps; the
 * planted drift includes a lost last frame (the internal-tx checkpoint's sequence one lower than
 * the frames derived), so the swap moves the sequence under the running stage, which must carry on
 * after the rebuilt frames. The oracle: a fresh index of the same heights (internal txs, row for
 * row) and the node itself (every stored balance, through `verify --state all`). EVM, both stages;
 * each store (on PostgreSQL the swap and the running stage meet on the checkpoint row's lock).
 */
const START = 8;
const RETRY = { baseMs: 5, capMs: 20 };

async function stageHeight(db: Db, stage: string): Promise<number> {
  const { rows } = await db.query<{ height: number }>('SELECT height FROM checkpoint WHERE stream = $1', [
    stage,
  ]);
  return Number(rows[0]?.height ?? 0);
}

/** Resolves once every stage stands at `height` or above (the indexer commits on its own time). */
async function untilStages(db: Db, height: number, outcome: () => { error?: unknown } | undefined) {
  for (;;) {
    const heights = await Promise.all(['internal_tx', 'rich_list'].map((s) => stageHeight(db, s)));
    if (Math.min(...heights) >= height) return;
    if (outcome()) throw new Error(`the indexer stopped: ${String(outcome()?.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const frames = async (db: Db, through: number) =>
  (
    await db.query(
      `SELECT t.sequence::text, t.height, encode(t.hash, 'hex') AS hash, t.data,
              (SELECT string_agg(encode(d.account, 'hex') || ':' || a.signer, ' ' ORDER BY d.account)
                 FROM evm_internal_tx_accounts a JOIN account_dict d ON d.id = a.account_id
                WHERE a.sequence = t.sequence) AS accounts
         FROM evm_internal_tx t WHERE t.height <= $1 ORDER BY t.sequence`,
      [through],
    )
  ).rows;

for (const factory of testDbFactories()) {
  describe(`reindex --stage beside a running indexer (evm, ${factory.name})`, () => {
    it('rebuilds while the stages move, swaps, and the running stages carry on from the swapped rows', async () => {
      const drifted = await factory.create();
      const fresh = await factory.create();
      const follower = await followSimulator({
        db: drifted.db,
        vm: 'evm',
        head: START,
        sim: { live: true, blockTimeMs: 1000, chainId: 'stage-live' },
      });
      const node = await openTestNodeRows(drifted.db, follower.urls);
      try {
        await untilStages(drifted.db, START, follower.outcome);
        await plantDrift(drifted.db);
        const swapped: Record<string, number> = {};
        for (const stage of ['internal_tx', 'rich_list'] as DerivationName[]) {
          const r = await runStageReindex(drifted.db, node, {
            stage,
            accountPrefix: 'init',
            batch: 3,
            retry: RETRY,
          });
          expect(r.finished).toBe(true);
          expect(r.to).toBeGreaterThanOrEqual(START);
          swapped[stage] = r.to;
        }
        // The running stages commit past the swap, from the swapped rows and sequence.
        await untilStages(drifted.db, Math.max(...Object.values(swapped)) + 3, follower.outcome);
        const through = await stageHeight(drifted.db, 'internal_tx');
        await ingestFrom({ db: fresh.db, vm: 'evm', urls: follower.urls, untilHeight: through });
        expect(await frames(drifted.db, through)).toEqual(await frames(fresh.db, through));
        const state = await runVerify(drifted.db, node, {
          heights: [],
          accountPrefix: 'init',
          state: { sample: 'all', seed: 1 },
        });
        expect(state.drifts).toEqual([]);
        expect(state.state?.richList?.checked).toBeGreaterThan(0);
      } finally {
        await node.close();
        await follower.close();
        await drifted.dispose();
        await fresh.dispose();
      }
      expect(follower.outcome()).toEqual({});
    }, 300_000);
  });
}

/**
 * A balance changed, a frame's JSON changed, and the last frame lost with the checkpoint's sequence
 * (one transaction that locks the checkpoint row first, as a stage's batch does).
 */
async function plantDrift(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query("SELECT height FROM checkpoint WHERE stream = 'internal_tx' FOR UPDATE");
    const last = await tx.query<{ sequence: string }>(
      'SELECT max(sequence)::text AS sequence FROM evm_internal_tx',
    );
    const sequence = last.rows[0]!.sequence;
    expect(sequence).not.toBeNull();
    await tx.query('DELETE FROM evm_internal_tx_accounts WHERE sequence = $1', [sequence]);
    await tx.query('DELETE FROM evm_internal_tx WHERE sequence = $1', [sequence]);
    await tx.query(
      "UPDATE checkpoint SET tx_sequence = tx_sequence - 1 WHERE stream = 'internal_tx' AND tx_sequence = $1",
      [sequence],
    );
    await tx.query(
      `UPDATE evm_internal_tx SET data = '{"planted":true}' WHERE sequence = (SELECT min(sequence) FROM evm_internal_tx)`,
    );
  });
  await db.query(
    `UPDATE rich_list SET amount = amount + 5
      WHERE (denom, account_id) = (SELECT denom, account_id FROM rich_list WHERE amount > 0 ORDER BY denom, account_id LIMIT 1)`,
  );
}
