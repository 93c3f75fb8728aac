import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import type { Db } from '../../src/store/driver/db.js';
import { createBlockWriter } from '../../src/store/writers/block-writer.js';
import { createInternalTxWriter } from '../../src/store/writers/internal-tx-writer.js';
import { rerenderDocuments, type BatchProgress } from '../../src/store/writers/document-rerender.js';
import type { EvmTxRow, TxRow } from '../../src/store/writers/rows.js';
import { renderEvmInternalTxJson } from '../../src/wire/evm-internal-tx.js';
import { renderEvmTxJson } from '../../src/wire/evm-tx.js';
import { TX_FORMAT_VERSION } from '../../src/wire/tx.js';
import { testDbFactories } from '../helpers/db.js';
import { oldFormatTxCases, type OldFormatTxCase } from '../helpers/old-tx-formats.js';
import { storedTxTexts, unpackStoredTxs } from '../helpers/stored-tx.js';

/** Copies of every case, so the job needs several batches; one block per copy. */
const COPIES = 3;
const BATCH_ROWS = 4;

const signer = Buffer.alloc(20, 1);
const txRow = (data: string, height: number, i: number): TxRow => ({
  hash: Buffer.alloc(32, i),
  height,
  signer,
  accounts: [signer],
  msgTypes: ['x.Msg'],
  data,
});
const evmTxRow = (height: number): EvmTxRow => ({
  hash: Buffer.alloc(32, 200 + height),
  height,
  signer,
  accounts: [signer],
  data: renderEvmTxJson({
    blockHash: '0xab',
    blockNumber: `0x${height.toString(16)}`,
    from: '0x0101010101010101010101010101010101010101',
    to: null,
    contractAddress: '0x02',
    logs: [{ address: '0x03', topics: [], data: '0x<\u0000>', removed: false, extra: 1 }],
    status: '0x1',
    type: '0x2',
  }),
});

/** Writes `COPIES` blocks holding every case's stored text of `pick` (old, or what ingest writes). */
async function plant(db: Db, cases: readonly OldFormatTxCase[], pick: 'old' | 'expected'): Promise<void> {
  const writer = await createBlockWriter(db);
  for (let copy = 0; copy < COPIES; copy++) {
    const height = copy + 1;
    await writer.write([
      {
        block: {
          height,
          hash: Buffer.alloc(32, height),
          timestamp: `2025-06-01T12:00:0${height}Z`,
          blockTimeMs: 1000,
          proposer: 'initvaloper1x',
          gasUsed: '0',
          gasWanted: '0',
          txCount: cases.length,
          totalFee: '[]',
        },
        txs: cases.map((c, i) => txRow(c[pick], height, copy * cases.length + i)),
        evmTxs: [evmTxRow(height)],
      },
    ]);
  }
  await db.transaction((tx) => createInternalTxWriter().write(tx, internalTxRows(), 0));
}

/** Two frames of one EVM tx, the top one with its output not recorded. */
function internalTxRows() {
  const frame = { type: 'CALL', input: '0xA', output: '0x1', value: '0x0', gas: '0x5208', gasUsed: '0x0' };
  return [0, 1].map((index) => ({
    height: 1,
    hash: Buffer.alloc(32, 7),
    data: renderEvmInternalTxJson(frame, {
      height: 1,
      txHash: `0x${'07'.repeat(32)}`,
      index,
      parentIndex: index - 1,
      fromHex: `0x${'01'.repeat(20)}`,
      toHex: '',
    }),
    from: signer,
    accounts: [signer],
    error: undefined,
    revertReason: undefined,
  }));
}

const apiOf = (db: Db) =>
  createApiApp({
    options: loadApiOptions({ CHAIN_ID: 'rerender-1', VM_TYPE: 'evm', API_CACHE: 'false' }),
    db,
    logger: silentLogger(),
    metrics: createMetricsRegistry({ defaultMetrics: false }),
  });

/** Every tx and EVM tx as the API answers them (one page each, oldest first). */
async function answers(app: FastifyInstance): Promise<string[]> {
  const urls = ['/indexer/tx/v1/txs', '/indexer/tx/v1/evm-txs'];
  const bodies = [];
  for (const url of urls) {
    bodies.push(
      (await app.inject({ method: 'GET', url: `${url}?pagination.limit=1000&pagination.reverse=false` }))
        .body,
    );
  }
  return bodies;
}

/** The live API's answers once its row cache has seen the store change (it re-checks every second). */
async function answersOnceEqual(app: FastifyInstance, expected: string[]): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  let seen = await answers(app);
  while (JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setImmediate(resolve));
    seen = await answers(app);
  }
  return seen;
}

async function storedTexts(db: Db, table: string): Promise<string[]> {
  if (table === 'tx') return (await storedTxTexts(db)).map((r) => r.data);
  const { rows } = await db.query<{ data: string }>(`SELECT data FROM ${table} ORDER BY sequence`);
  return rows.map((r) => r.data);
}

async function formatOf(db: Db, document: string) {
  const { rows } = await db.query<{
    version: number;
    rerender_to: number | null;
    rerender_after: string | null;
  }>('SELECT version, rerender_to, rerender_after FROM document_format WHERE document = $1', [document]);
  return rows[0];
}

describe.each(testDbFactories())('re-render job on $name', (factory) => {
  it('re-renders format-1 tx text rows packed, in batches, resumes after a stop, and ends equal to a fresh ingest', async () => {
    const cases = oldFormatTxCases();
    expect(cases.filter((c) => c.old !== c.expected).length).toBeGreaterThanOrEqual(8);
    const old = await factory.create();
    const fresh = await factory.create();
    try {
      await plant(old.db, cases, 'old');
      await plant(fresh.db, cases, 'expected');
      // The old rows as a database from before migration 0020 holds them: text, not packed.
      await unpackStoredTxs(old.db);
      // The planted rows are in format 1; the EVM txs are current but recorded as older, so the job
      // walks them too and must leave every one as it is.
      await old.db.query(`UPDATE document_format SET version = 1 WHERE document = 'tx'`);
      await old.db.query(
        `UPDATE document_format SET version = 0 WHERE document IN ('evm_tx', 'evm_internal_tx')`,
      );
      const total = cases.length * COPIES;
      // A live API over the old rows, its row cache filled with them.
      const live = await apiOf(old.db);
      const reference = await apiOf(fresh.db);
      const freshAnswers = await answers(reference);
      // Twice: the row cache keeps a row from its second read on.
      for (let read = 0; read < 2; read++) expect(await answers(live)).not.toEqual(freshAnswers);

      // First run, stopped after two batches.
      const stop = new AbortController();
      const firstBatches: BatchProgress[] = [];
      const first = await rerenderDocuments(old.db, {
        batchRows: BATCH_ROWS,
        signal: stop.signal,
        onBatch: (b) => {
          firstBatches.push(b);
          if (firstBatches.length === 2) stop.abort();
        },
      });
      expect(first).toEqual([
        expect.objectContaining({ table: 'tx', finished: false, rowsRead: 2 * BATCH_ROWS }),
      ]);
      const checkpoint = await formatOf(old.db, 'tx');
      expect(checkpoint).toMatchObject({ version: 1, rerender_to: TX_FORMAT_VERSION });
      expect(Number(checkpoint?.rerender_after)).toBe(firstBatches[1]!.after);
      const midway = await storedTexts(old.db, 'tx');
      const expectedAll = Array.from({ length: COPIES }, () => cases.map((c) => c.expected)).flat();
      const oldAll = Array.from({ length: COPIES }, () => cases.map((c) => c.old)).flat();
      expect(midway.slice(0, 2 * BATCH_ROWS)).toEqual(expectedAll.slice(0, 2 * BATCH_ROWS));
      expect(midway.slice(2 * BATCH_ROWS)).toEqual(oldAll.slice(2 * BATCH_ROWS));

      // Second run resumes at the checkpoint and finishes every document.
      const resumed: BatchProgress[] = [];
      const second = await rerenderDocuments(old.db, {
        batchRows: BATCH_ROWS,
        onBatch: (b) => resumed.push(b),
      });
      const txReport = second.find((r) => r.table === 'tx');
      expect(txReport).toMatchObject({ finished: true, rowsRead: total - 2 * BATCH_ROWS });
      expect(resumed.filter((b) => b.table === 'tx')[0]!.after).toBe(firstBatches[1]!.after + BATCH_ROWS);
      expect(second.find((r) => r.table === 'evm_tx')).toMatchObject({
        finished: true,
        rowsRead: COPIES,
        rowsChanged: 0,
      });
      expect(second.find((r) => r.table === 'evm_internal_tx')).toMatchObject({
        finished: true,
        rowsRead: 2,
        rowsChanged: 0,
      });
      for (const table of ['tx', 'evm_tx', 'evm_internal_tx'])
        expect(await storedTexts(old.db, table), table).toEqual(await storedTexts(fresh.db, table));
      // Every tx row now packed, rows whose text was already current included.
      const { rows: text } = await old.db.query('SELECT sequence FROM tx WHERE data IS NOT NULL');
      expect(text).toEqual([]);
      expect(await formatOf(old.db, 'tx')).toEqual({
        version: TX_FORMAT_VERSION,
        rerender_to: null,
        rerender_after: null,
      });

      // The live API answers what it would over a fresh ingest, without a restart.
      expect(await answersOnceEqual(live, freshAnswers)).toEqual(freshAnswers);
      await live.close();
      await reference.close();

      // Idempotent: nothing left to do, and forcing another pass changes no row.
      expect(await rerenderDocuments(old.db)).toEqual([]);
      await old.db.query(`UPDATE document_format SET version = 1 WHERE document = 'tx'`);
      const again = await rerenderDocuments(old.db);
      expect(again).toEqual([expect.objectContaining({ table: 'tx', rowsRead: total, rowsChanged: 0 })]);
    } finally {
      await old.dispose();
      await fresh.dispose();
    }
  });

  it('refuses to run on documents stored in a newer format than this release renders', async () => {
    const { db, dispose } = await factory.create();
    try {
      await db.query(`UPDATE document_format SET version = $1 WHERE document = 'tx'`, [
        TX_FORMAT_VERSION + 1,
      ]);
      await expect(rerenderDocuments(db)).rejects.toMatchObject({ code: 'document_format_newer' });
    } finally {
      await dispose();
    }
  });
});
