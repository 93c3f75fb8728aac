import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import { migrate, migrationNames } from '../../src/store/migrations/migrate.js';
import { COSMOS_TX_TABLES, listByAccount } from '../../src/store/readers/sequence-tables.js';
import { createBlockWriter } from '../../src/store/writers/block-writer.js';
import type { BlockRows } from '../../src/store/writers/rows.js';
import { prng, testBlock } from '../helpers/block-rows.js';
import { testDbFactories } from '../helpers/db.js';
import { copyRows } from '../helpers/table-copy.js';
import { expectTypeSetCountsMatchEdges } from '../helpers/truth.js';

/**
 * Migration 0018 narrows the Cosmos tx edge rows: tx_accounts is recreated as (sequence,
 * account_id integer, signer) and tx_account_msg_types.account_id becomes integer. On a database
 * whose edges were written before it: the same rows, the indexes of a fresh database (names and
 * definitions), every account page (all and signed, with and without a type filter) as before,
 * privileges on the recreated table kept. A database holding an account id beyond integer refuses
 * the migration whole and keeps its tables.
 */
const MIGRATION = '20261128_0018_edge_bytes.sql';
const TYPES = ['test.v1.MsgA', 'test.v1.MsgB', 'test.v1.MsgC'];
const ACCOUNTS = 9;
const BLOCKS = 40;
const EDGE_TABLES = ['tx_accounts', 'tx_account_msg_types'];

const account = (n: number) => Buffer.alloc(20, n);

function generateChain(): BlockRows[] {
  const random = prng(11);
  let txs = 0;
  return Array.from({ length: BLOCKS }, (_, b): BlockRows => {
    const height = b + 1;
    const rows = Array.from({ length: 1 + random(5) }, () => {
      txs++;
      const accounts = [...new Set(Array.from({ length: 1 + random(4) }, () => 1 + random(ACCOUNTS)))];
      return {
        hash: Buffer.alloc(32, txs % 256),
        height,
        signer: account(accounts[0]!),
        accounts: accounts.map(account),
        msgTypes: Array.from({ length: 1 + random(2) }, () => TYPES[random(TYPES.length)]!),
        data: `{"tx":${txs}}`,
      };
    });
    return {
      block: testBlock(height, rows.length),
      txs: rows,
      evmTxs: [],
    };
  });
}

async function ingest(db: Db, blocks: readonly BlockRows[]): Promise<void> {
  const writer = await createBlockWriter(db);
  for (let at = 0; at < blocks.length; at += 4) await writer.write(blocks.slice(at, at + 4));
}

/** Each edge table's rows in one order, whatever its column order. */
async function edgeRows(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  out.tx_accounts = (
    await db.query('SELECT account_id, sequence, signer FROM tx_accounts ORDER BY account_id, sequence')
  ).rows;
  out.tx_account_msg_types = (
    await db.query(
      `SELECT account_id, msg_type_id, sequence, signer FROM tx_account_msg_types
        ORDER BY account_id, msg_type_id, sequence`,
    )
  ).rows;
  return out;
}

async function layout(db: Db) {
  const { rows: columns } = await db.query<{ table: string; column: string; type: string }>(
    `SELECT table_name AS table, column_name AS column, data_type AS type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ANY($1) ORDER BY table_name, ordinal_position`,
    [EDGE_TABLES],
  );
  const { rows: indexes } = await db.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = ANY($1) ORDER BY indexname`,
    [EDGE_TABLES],
  );
  return { columns, indexes };
}

/** Every account's first page, all and signed, unfiltered and filtered by each type and by all. */
async function accountPages(db: Db): Promise<unknown[]> {
  const ctx = { db, countTimeoutMs: 5_000 };
  const { rows: types } = await db.query<{ id: number }>('SELECT id FROM msg_type_dict ORDER BY id');
  const { rows: accounts } = await db.query<{ id: number }>('SELECT id FROM account_dict ORDER BY id');
  const filters = [undefined, ...types.map((t) => [t.id]), types.map((t) => t.id)];
  const pages: unknown[] = [];
  for (const { id } of accounts) {
    for (const signerOnly of [false, true]) {
      for (const msgTypeIds of filters) {
        const plan = { offset: 0, limit: 50, desc: true };
        const page = await listByAccount(ctx, COSMOS_TX_TABLES, plan, {
          accountId: id,
          signerOnly,
          msgTypeIds,
          countTotal: true,
        });
        // As text: packed rows read back as bytes, rows stored as text before 0020 as strings.
        const items = page.items.map((i) => (typeof i === 'string' ? i : Buffer.from(i).toString('utf8')));
        pages.push({ id, signerOnly, msgTypeIds, page: { ...page, items } });
      }
    }
  }
  return pages;
}

describe.each(testDbFactories())('migration 0018: narrower tx edge rows ($name)', (factory) => {
  let reference: { db: Db; dispose(): Promise<void> };
  let before: string;
  beforeAll(async () => {
    reference = await factory.create();
    await ingest(reference.db, generateChain());
    const names = await migrationNames();
    before = names[names.indexOf(MIGRATION) - 1]!;
  }, 120_000);
  afterAll(() => reference?.dispose());

  it('a fresh database has the narrow layout', async () => {
    const { columns } = await layout(reference.db);
    expect(columns.map((c) => `${c.table}.${c.column} ${c.type}`)).toEqual([
      'tx_account_msg_types.account_id integer',
      'tx_account_msg_types.msg_type_id integer',
      'tx_account_msg_types.sequence bigint',
      'tx_account_msg_types.signer boolean',
      'tx_accounts.sequence bigint',
      'tx_accounts.account_id integer',
      'tx_accounts.signer boolean',
    ]);
  });

  it('converts edges written before it: same rows, indexes and pages; privileges kept', async () => {
    const old = await factory.create({ upTo: before });
    try {
      await copyRows(reference.db, old.db);
      await old.db.exec('GRANT SELECT ON tx_accounts TO PUBLIC');
      const rowsBefore = await edgeRows(old.db);
      expect((await layout(old.db)).columns.find((c) => c.table === 'tx_accounts')).toMatchObject({
        column: 'account_id',
        type: 'bigint',
      });

      expect((await migrate(old.db, { upTo: MIGRATION })).applied).toEqual([MIGRATION]);
      expect(await layout(old.db)).toEqual(await layout(reference.db));
      expect(await edgeRows(old.db)).toEqual(rowsBefore);
      expect(await edgeRows(old.db)).toEqual(await edgeRows(reference.db));
      await expectTypeSetCountsMatchEdges(old.db);
      // Today's readers and writer need the later migrations too (0020 packs tx texts): the
      // converted database then answers every page as the one indexed fresh does.
      await migrate(old.db);
      const pages = await accountPages(reference.db);
      expect(pages.length).toBeGreaterThan(ACCOUNTS * 2 * 4 - 1);
      expect(await accountPages(old.db)).toEqual(pages);
      const { rows: acl } = await old.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_class c, aclexplode(c.relacl) a
          WHERE c.oid = 'tx_accounts'::regclass AND a.grantee = 0 AND a.privilege_type = 'SELECT'`,
      );
      expect(acl[0]!.n).toBe(1);
      // Ingest goes on writing into the converted tables.
      const more = generateChain().map((b) => ({
        ...b,
        block: { ...b.block, height: b.block.height + BLOCKS },
      }));
      await ingest(old.db, more.slice(0, 4));
      await expectTypeSetCountsMatchEdges(old.db);
    } finally {
      await old.dispose();
    }
  });

  it('refuses a database whose edges hold an account id beyond integer, keeping its tables', async () => {
    const old = await factory.create({ upTo: before });
    try {
      await old.db.exec(
        `INSERT INTO tx_accounts (account_id, sequence, signer) VALUES (3000000000, 1, true);
         INSERT INTO tx_account_msg_types (account_id, msg_type_id, sequence, signer) VALUES (3000000000, 1, 1, true)`,
      );
      const failure = await migrate(old.db).then(
        () => undefined,
        (err: unknown) => err as { cause?: { message?: string } },
      );
      expect(failure?.cause?.message).toMatch(/integer out of range/);
      const { columns } = await layout(old.db);
      expect(columns.filter((c) => c.column === 'account_id').map((c) => c.type)).toEqual([
        'bigint',
        'bigint',
      ]);
      const { rows } = await old.db.query<{ id: number }>('SELECT account_id AS id FROM tx_accounts');
      expect(rows).toEqual([{ id: 3000000000 }]);
    } finally {
      await old.dispose();
    }
  });
});
