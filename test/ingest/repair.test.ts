import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import type { NodeRows } from '../../src/ingest/repair/node-rows.js';
import { abandonReindex, runReindex } from '../../src/ingest/repair/reindex.js';
import { runVerify, verifyHeights } from '../../src/ingest/repair/verify.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorUrls } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { routeAnswers } from '../api/route-answers.js';
import { testDbFactories } from '../helpers/db.js';
import { ingestFrom } from '../helpers/ingest.js';
import { openTestNodeRows } from '../helpers/repair.js';
import { editStoredTxs } from '../helpers/stored-tx.js';

/**
 * `verify` and `reindex` (docs/ingest.md §11) on one simulator chain, with the simulator's answers
 * as the truth: a clean index verifies clean; planted drift is named, each with its route; a
 * `reindex` killed after its first batch and run again repairs the index so that every route class
 * answers byte for byte as a fresh index of the chain does, while an API with its caches on keeps
 * answering, and serves a page it held before the repair with the repaired bytes after it.
 * One VM and one store: what is compared is the block pipeline's rows, the same SQL on each VM.
 */
const HEAD = 30;
const factory = testDbFactories().at(-1)!;

describe(`verify and reindex (move, ${factory.name})`, () => {
  let sim: Simulator;
  let urls: SimulatorUrls;
  let fresh: { db: Db; dispose(): Promise<void> };
  let drifted: { db: Db; dispose(): Promise<void> };
  let node: NodeRows;

  beforeAll(async () => {
    sim = createSimulator({
      vm: 'move',
      head: HEAD,
      chainId: 'repair-1',
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
    });
    urls = await sim.listen();
    fresh = await factory.create();
    drifted = await factory.create();
    for (const db of [fresh.db, drifted.db]) await ingestFrom({ db, vm: 'move', urls, untilHeight: HEAD });
    node = await openTestNodeRows(drifted.db, urls);
  }, 120_000);

  afterAll(async () => {
    await node?.close();
    await fresh?.dispose();
    await drifted?.dispose();
    await sim?.close();
  });

  const verify = async (db: Db) =>
    runVerify(db, node, { heights: await verifyHeights(db, {}), accountPrefix: 'init', batch: 7 });

  /** Txs of two heights with txs: a changed row, a missing one; a block and an edge too. */
  async function plantDrift(db: Db) {
    const { rows } = await db.query<{ sequence: string; height: string; hash: string }>(
      `SELECT sequence::text, height::text, upper(encode(hash, 'hex')) AS hash FROM tx
        WHERE height IN (SELECT DISTINCT height FROM tx ORDER BY height LIMIT 2) ORDER BY sequence`,
    );
    const changed = rows[0]!;
    const missing = rows.find((r) => r.height !== changed.height)!;
    await editStoredTxs(db, 'sequence = $1', [changed.sequence], (text) =>
      text.replaceAll('"gas_used":"', '"gas_used":"9'),
    );
    await db.query(`UPDATE block SET proposer = 'initvaloper1wrong' WHERE height = 3`);
    return { changed, missing };
  }

  /** Takes a tx row out (its edges stay); the returned function puts it back. */
  async function takeTx(db: Db, sequence: string): Promise<() => Promise<void>> {
    const saved = await db.query('SELECT * FROM tx WHERE sequence = $1', [sequence]);
    await db.query('DELETE FROM tx WHERE sequence = $1', [sequence]);
    return async () => {
      const row = saved.rows[0] as Record<string, unknown>;
      await db.query(
        'INSERT INTO tx (sequence, hash, height, signer_id, data, data_packed) VALUES ($1, $2, $3, $4, $5, $6)',
        [row.sequence, row.hash, row.height, row.signer_id, row.data, row.data_packed],
      );
    };
  }

  let planted: Awaited<ReturnType<typeof plantDrift>>;

  it('finds nothing on a clean index, and names each planted difference with its route', async () => {
    const clean = await verify(drifted.db);
    expect(clean.drifts).toEqual([]);
    expect(clean.heights).toBe(HEAD);

    planted = await plantDrift(drifted.db);
    const { changed, missing } = planted;
    const putBack = await takeTx(drifted.db, missing.sequence);
    const found = (await verify(drifted.db)).drifts;
    expect(found).toContainEqual(
      expect.objectContaining({
        kind: 'tx.data',
        height: Number(changed.height),
        route: `/indexer/tx/v1/txs/${changed.hash}`,
      }),
    );
    expect(found).toContainEqual(
      expect.objectContaining({
        kind: 'tx.missing',
        height: Number(missing.height),
        route: `/indexer/tx/v1/txs/by_height/${missing.height}`,
      }),
    );
    expect(found).toContainEqual(
      expect.objectContaining({ kind: 'block.proposer', height: 3, route: '/indexer/block/v1/blocks/3' }),
    );
    expect(found.map((d) => d.kind).sort()).toEqual(['block.proposer', 'tx.data', 'tx.missing']);

    // A height holding another number of txs than the node's cannot be replaced in place.
    const height = Number(missing.height);
    await expect(runReindex(drifted.db, node, { from: height, to: height })).rejects.toMatchObject({
      code: 'reindex_shape',
      message: expect.stringContaining(`height ${height} holds`),
    });
    expect(await abandonReindex(drifted.db)).toContain(`dropped the reindex of ${height}..${height}`);
    await putBack();
  }, 60_000);

  it('repairs through a reindex killed after one batch and run again: every route as a fresh index', async () => {
    const app = await createApiApp({
      options: loadApiOptions({ CHAIN_ID: 'repair-1', VM_TYPE: 'move' }),
      db: drifted.db,
      logger: silentLogger(),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
    });
    const get = (url: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers });
    // Held before the repair: the detail in the response cache (10 s), the list's rows in the row
    // cache (admitted on their second read; `no-cache` runs the handler each time).
    const detail = `/indexer/tx/v1/txs/${planted.changed.hash}`;
    const list = `/indexer/tx/v1/txs/by_height/${planted.changed.height}`;
    const before = { detail: (await get(detail)).body, list: '' };
    expect((await get(detail)).headers['x-cache']).toBe('hit');
    for (let i = 0; i < 2; i += 1) before.list = (await get(list, { 'cache-control': 'no-cache' })).body;
    expect(before.detail).toContain('"gas_used":"9');

    const statuses: number[] = [];
    let repairing = true;
    const reader = (async () => {
      const page = '/indexer/tx/v1/txs?pagination.limit=5';
      while (repairing) {
        statuses.push((await get(page, { 'cache-control': 'no-store' })).statusCode);
        // A read every few milliseconds (a macrotask, so the simulator's sockets and the reindex's
        // I/O run between reads): back to back, the reader took as much CPU as the repair.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      const stop = new AbortController();
      const first = await runReindex(drifted.db, node, {
        from: 1,
        to: HEAD,
        batch: 10,
        signal: stop.signal,
        onBatch: () => stop.abort(),
      });
      expect(first).toMatchObject({ heights: 10, finished: false });
      const resumed = await runReindex(drifted.db, node, { from: 1, to: HEAD, batch: 10 });
      expect(resumed).toMatchObject({ heights: HEAD - 10, finished: true });
    } finally {
      repairing = false;
      await reader;
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));

    const after = {
      detail: (await get(detail)).body,
      list: (await get(list, { 'cache-control': 'no-cache' })).body,
    };
    await app.close();
    const truth = await routeAnswers(fresh.db, sim, HEAD, [detail, list]);
    expect(after.detail).toBe(truth.get(detail)!.split('\n').slice(1).join('\n'));
    expect(after.list).toBe(truth.get(list)!.split('\n').slice(1).join('\n'));
    expect(after.detail).not.toBe(before.detail);
    expect(await routeAnswers(drifted.db, sim, HEAD, [detail, list])).toEqual(truth);
    expect((await verify(drifted.db)).drifts).toEqual([]);
  }, 120_000);
});

describe(`verify and reindex of EVM receipts (${factory.name})`, () => {
  it('names a changed receipt by its route, and reindex repairs it', async () => {
    const sim = createSimulator({ vm: 'evm', head: 12, rpcPort: 0, restPort: 0, jsonRpcPort: 0 });
    const urls = await sim.listen();
    const { db, dispose } = await factory.create();
    let node: NodeRows | undefined;
    try {
      await ingestFrom({
        db,
        vm: 'evm',
        urls,
        untilHeight: 12,
        stages: { internalTx: false, richList: false },
      });
      node = await openTestNodeRows(db, urls);
      const verify = async () =>
        (await runVerify(db, node!, { heights: await verifyHeights(db, {}), accountPrefix: 'init' })).drifts;
      expect(await verify()).toEqual([]);
      const { rows } = await db.query<{ sequence: string; height: string; hash: string }>(
        `SELECT sequence::text, height::text, encode(hash, 'hex') AS hash FROM evm_tx ORDER BY sequence LIMIT 1`,
      );
      const receipt = rows[0]!;
      await db.query(
        `UPDATE evm_tx SET data = replace(data, '"status":"0x1"', '"status":"0x0"') WHERE sequence = $1`,
        [receipt.sequence],
      );
      expect(await verify()).toEqual([
        expect.objectContaining({
          kind: 'evm_tx.data',
          height: Number(receipt.height),
          route: `/indexer/tx/v1/evm-txs/0x${receipt.hash}`,
        }),
      ]);
      const height = Number(receipt.height);
      await runReindex(db, node, { from: height, to: height });
      expect(await verify()).toEqual([]);
    } finally {
      await node?.close();
      await dispose();
      await sim.close();
    }
  }, 90_000);
});
