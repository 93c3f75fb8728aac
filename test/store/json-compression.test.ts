import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';

/**
 * Migration 0013 stores the JSON columns lz4-compressed where the server has lz4 (PostgreSQL
 * built with it) and changes nothing elsewhere (PGlite). An EVM chain is indexed through the real
 * pipeline up to a height, the migration's statements applied, and the rest indexed: rows written before keep
 * pglz, rows written after take the column's method, and no table was rewritten.
 */
const MIGRATION = '20261127_0013_json_lz4.sql';
// tx's texts are packed by the application since 0020 (docs/ingest.md §9.2): its `data` holds none.
const TABLES = ['evm_tx'] as const;
const STOP = 3;
const HEAD = 6;

async function hasLz4(db: Db): Promise<boolean> {
  const { rows } = await db.query<{ lz4: boolean }>(
    "SELECT 'lz4' = ANY (enumvals::text[]) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'",
  );
  return rows[0]?.lz4 === true;
}

const fileNodes = async (db: Db) =>
  (
    await db.query<{ relname: string; relfilenode: number }>(
      "SELECT relname, relfilenode FROM pg_class WHERE relname IN ('tx', 'evm_tx', 'evm_internal_tx') ORDER BY relname",
    )
  ).rows;

/** Compression method of each compressed `data` value, by whether its block is before the stop. */
async function methods(db: Db, table: string): Promise<{ before: string[]; after: string[] }> {
  const { rows } = await db.query<{ late: boolean; method: string }>(
    `SELECT DISTINCT height > ${STOP} AS late, pg_column_compression(data) AS method
       FROM ${table} WHERE pg_column_compression(data) IS NOT NULL`,
  );
  const pick = (late: boolean) => rows.filter((r) => r.late === late).map((r) => r.method);
  return { before: pick(false), after: pick(true) };
}

describe.each(testDbFactories())('JSON column compression, migration 0013 ($name)', (factory) => {
  let db: Db;
  let dispose: () => Promise<void>;
  let nodesAtMigration: Awaited<ReturnType<typeof fileNodes>> = [];
  beforeAll(async () => {
    // Today's schema (the writers need all of it) with the JSON columns put back to the server's
    // default, as they were before 0013; at the stop, 0013's own statements run as the runner
    // runs a file (one transaction).
    ({ db, dispose } = await factory.create());
    for (const table of ['tx', 'evm_tx', 'evm_internal_tx'])
      await db.exec(`ALTER TABLE ${table} ALTER COLUMN data SET COMPRESSION default`);
    const sql = await readFile(new URL(`../../migrations/${MIGRATION}`, import.meta.url), 'utf8');
    const indexed = await indexSimulator({
      db,
      vm: 'evm',
      head: HEAD,
      txsPerBlock: '4',
      stops: {
        heights: [STOP],
        at: async () => {
          nodesAtMigration = await fileNodes(db);
          await db.exec(`BEGIN;\n${sql}\nCOMMIT;`);
        },
      },
    });
    await indexed.close();
  }, 120_000);
  afterAll(() => dispose?.());

  it('sets lz4 on the JSON columns where the server has it, and only there', async () => {
    const { rows } = await db.query<{ relname: string; method: string }>(
      `SELECT c.relname, a.attcompression::text AS method FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE a.attname = 'data' AND c.relname IN ('tx', 'evm_tx', 'evm_internal_tx') ORDER BY c.relname`,
    );
    const expected = (await hasLz4(db)) ? 'l' : ''; // '' = the server's default, pglz
    expect(rows).toEqual(
      ['evm_internal_tx', 'evm_tx', 'tx'].map((relname) => ({ relname, method: expected })),
    );
  });

  it.each(TABLES)('%s: rows written before stay pglz, rows written after take the method', async (table) => {
    const { before, after } = await methods(db, table);
    expect(before).toEqual(['pglz']);
    expect(after).toEqual([(await hasLz4(db)) ? 'lz4' : 'pglz']);
  });

  it('rewrote no table (catalog only)', async () => {
    expect(nodesAtMigration).toHaveLength(3);
    expect(await fileNodes(db)).toEqual(nodesAtMigration);
  });
});
