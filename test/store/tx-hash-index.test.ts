import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import { COSMOS_TX_TABLES, EVM_TX_TABLES, findByHash } from '../../src/store/readers/sequence-tables.js';
import { testDbFactories } from '../helpers/db.js';

/**
 * Migration 0012 replaces the tx and evm_tx hash B-trees with hash indexes. Looking a tx up by hash
 * must still find it (the lowest sequence when a hash repeats) and through the index, not a scan
 * of the table, on both engines.
 */
const ROWS = 20_000;
const hashOf = (n: number) => createHash('sha256').update(`tx-${n}`).digest();

/** The reader's statements, recorded as it runs them, so the plan checked is the one it uses. */
function recording(db: Db): { db: Db; statements: { sql: string; params: unknown[] }[] } {
  const statements: { sql: string; params: unknown[] }[] = [];
  const proxy = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
      return (sql: string, params: unknown[] = []) => {
        statements.push({ sql, params });
        return target.query(sql, params);
      };
    },
  });
  return { db: proxy, statements };
}

async function seed(db: Db, table: 'tx' | 'evm_tx'): Promise<void> {
  const hashes = Array.from({ length: ROWS }, (_, i) => hashOf(i + 1));
  await db.query(
    `INSERT INTO ${table} (sequence, hash, height, signer_id, data)
       SELECT s, h, s, 0, '{"n":' || s || '}' FROM unnest($1::bytea[]) WITH ORDINALITY AS u(h, s)`,
    [hashes],
  );
  // The same hash again at a later sequence (an EVM tx re-sent): the lowest sequence is the answer.
  await db.query(
    `INSERT INTO ${table} (sequence, hash, height, signer_id, data) VALUES ($1, $2, $1, 0, '{"again":true}')`,
    [ROWS + 1, hashOf(7)],
  );
  await db.exec(`ANALYZE ${table}`);
}

describe.each(testDbFactories())('tx hash lookups after migration 0012 ($name)', (factory) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ db, dispose } = await factory.create());
    await seed(db, 'tx');
    await seed(db, 'evm_tx');
  }, 120_000);
  afterAll(() => dispose?.());

  it.each([
    ['tx', COSMOS_TX_TABLES, 'tx_hash_hidx'],
    ['evm_tx', EVM_TX_TABLES, 'evm_tx_hash_hidx'],
  ] as const)('%s: found by hash through the hash index', async (_table, tables, index) => {
    const rec = recording(db);
    const ctx = { db: rec.db, countTimeoutMs: 1_000 };
    expect(await findByHash(ctx, tables, hashOf(12_345))).toBe('{"n":12345}');
    expect(await findByHash(ctx, tables, hashOf(7))).toBe('{"n":7}');
    expect(await findByHash(ctx, tables, hashOf(ROWS + 5))).toBeUndefined();
    const { sql, params } = rec.statements[0]!;
    const plan = (await db.query<Record<string, string>>(`EXPLAIN ${sql}`, params)).rows
      .map((r) => Object.values(r)[0])
      .join('\n');
    expect(plan).toContain(index);
    expect(plan).not.toMatch(/Seq Scan/);
  });
});
