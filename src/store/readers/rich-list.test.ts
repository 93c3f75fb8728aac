import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import type { Db } from '../driver/db.js';
import { createRichListWriter, type DenomAlias } from '../writers/rich-list-writer.js';
import { createRichListReader } from './rich-list.js';

const account = (n: number) => Buffer.alloc(20, n);
/** Distinct 20-byte accounts beyond 255. */
const holderAccount = (n: number) => {
  const bytes = Buffer.alloc(20);
  bytes.writeUInt32BE(n, 16);
  return bytes;
};
const EVIL = 'move/' + 'e1'.repeat(32);
const EVIL2 = 'move/' + 'e2'.repeat(32);

/** Writes balances and aliases in one transaction, as the rich-list stage does. */
async function write(
  db: Db,
  balances: Array<[denom: string, account: number, amount: bigint]>,
  aliases: DenomAlias[],
) {
  const writer = createRichListWriter();
  await db.transaction(async (tx) => {
    await writer.set(
      tx,
      balances.map(([denom, n, amount]) => ({ denom, account: account(n), amount })),
    );
    await writer.aliases(tx, aliases);
  });
  writer.committed();
}

/**
 * 4,000 accounts, each with one balance: denom and amount are SQL over the account's id. Analysed,
 * so the planner sees a table the size of a real list's first pages.
 */
async function seedAccountBalances(db: Db, denomSql: string, amountSql: string) {
  await db.query(`INSERT INTO account_dict (account) SELECT int4send(i) FROM generate_series(1, 4000) i`);
  await db.query(
    `INSERT INTO rich_list (denom, account_id, amount) SELECT ${denomSql}, id, ${amountSql} FROM account_dict`,
  );
  await db.query('ANALYZE rich_list');
}

/** A reader whose statements (text and parameters) are recorded, in order. */
function recordingReader(db: Db) {
  const statements: { sql: string; params: unknown[] }[] = [];
  const recording = {
    ...db,
    query: (sql: string, params: unknown[] = []) => {
      statements.push({ sql, params });
      return db.query(sql, params);
    },
  } as Db;
  return { reader: createRichListReader({ db: recording, countTimeoutMs: 1_000 }), statements };
}

const aliasRows = async (db: Db) =>
  (
    await db.query<{ alias: string; denom: string }>(
      'SELECT alias, denom FROM rich_list_denom ORDER BY alias',
    )
  ).rows;

describe.each(testDbFactories())('rich-list reader on $name', (factory) => {
  const page = { limit: 10, offset: 0, desc: true };
  /** The amounts listed for a spelling, largest first. */
  const listed = async (db: Db, spelling: string) => {
    const reader = createRichListReader({ db, countTimeoutMs: 1_000 });
    const { rows, total } = await reader.holders(spelling, page, { countTotal: true });
    return { amounts: rows.map((r) => r.amount), total };
  };

  it('resolves a stored denom before any alias; a symbol alias never takes a denom or another alias', async () => {
    const { db, dispose } = await factory.create();
    try {
      // uinit is a real denom; two assets with 0 decimals both call themselves "UINIT", and both
      // "FAKE"; the first asset is also asked for by its move/ form, which a symbol tries to take.
      await write(
        db,
        [
          ['uinit', 1, 100n],
          ['uinit', 2, 50n],
          [EVIL, 3, 7n],
          [EVIL2, 4, 9n],
        ],
        [
          { alias: 'uinit', denom: EVIL, bySymbol: true },
          { alias: 'fake', denom: EVIL, bySymbol: true },
          { alias: 'uinit', denom: EVIL2, bySymbol: true },
          { alias: 'fake', denom: EVIL2, bySymbol: true },
          { alias: 'move/' + 'aa'.repeat(32), denom: EVIL2, bySymbol: true },
        ],
      );
      // A later batch learns the node's own mapping for that move/ form, and the same symbols again.
      await write(
        db,
        [],
        [
          { alias: 'fake', denom: EVIL2, bySymbol: true },
          { alias: 'move/' + 'aa'.repeat(32), denom: 'uinit' },
        ],
      );
      expect(await aliasRows(db)).toEqual([
        { alias: 'fake', denom: EVIL },
        { alias: 'move/' + 'aa'.repeat(32), denom: 'uinit' },
      ]);
      expect(await listed(db, 'uinit')).toEqual({ amounts: ['100', '50'], total: '2' });
      expect(await listed(db, 'fake')).toEqual({ amounts: ['7'], total: '1' });
      expect(await listed(db, 'move/' + 'aa'.repeat(32))).toEqual({ amounts: ['100', '50'], total: '2' });
      expect(await listed(db, EVIL2)).toEqual({ amounts: ['9'], total: '1' });
      expect(await listed(db, 'unknown')).toEqual({ amounts: [], total: '0' });
    } finally {
      await dispose();
    }
  });

  it('a denom first stored after an alias of the same spelling is listed itself', async () => {
    const { db, dispose } = await factory.create();
    try {
      await write(db, [[EVIL, 3, 7n]], [{ alias: 'ucoin', denom: EVIL, bySymbol: true }]);
      expect(await listed(db, 'ucoin')).toEqual({ amounts: ['7'], total: '1' });
      await write(db, [['ucoin', 1, 5n]], [{ alias: 'ucoin', denom: EVIL, bySymbol: true }]);
      expect(await listed(db, 'ucoin')).toEqual({ amounts: ['5'], total: '1' });
    } finally {
      await dispose();
    }
  });

  it('cuts a page from rich_list_holders_idx under a generic plan (the denom resolved once, as an InitPlan, by key look-ups)', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedAccountBalances(db, `'d' || (id % 20)`, 'id * 7 % 1000');
      await db.query(`INSERT INTO rich_list_denom VALUES ('alias', 'd3')`);
      await db.query('ANALYZE rich_list_denom');
      const { reader, statements } = recordingReader(db);
      await reader.holders('alias', page, { countTotal: true });
      const { sql } = statements[0]!;
      const plan = await db.transaction(async (tx) => {
        await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
        await tx.query(`PREPARE holders_page AS ${sql}`);
        const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE holders_page('alias')`);
        await tx.query('DEALLOCATE holders_page');
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).toMatch(/Index (Only )?Scan using rich_list_holders_idx on rich_list r\b/);
      expect(plan).toMatch(/InitPlan/);
      // The stored-denom probe is a key look-up too, never a scan of every balance.
      expect(plan).toMatch(/Index (Only )?Scan using rich_list_pkey on rich_list s\b/);
      expect(plan).not.toMatch(/Seq Scan on rich_list\b/);
    } finally {
      await dispose();
    }
  });

  it('deep offset pages read from rank marks equal the offset walk, before and after the list changes', async () => {
    const { db, dispose } = await factory.create();
    try {
      const { reader, statements } = recordingReader(db);
      const version = async (change: Array<[number, bigint]>) => {
        const writer = createRichListWriter();
        await db.transaction(async (tx) => {
          await writer.set(
            tx,
            change.map(([n, amount]) => ({ denom: 'd', account: holderAccount(n), amount })),
          );
          await tx.query(
            `INSERT INTO checkpoint (stream, height) VALUES ('rich_list', 1)
             ON CONFLICT (stream) DO UPDATE SET height = checkpoint.height + 1`,
          );
        });
        writer.committed();
      };
      const walk = async (offset: number, desc: boolean) => {
        const dir = desc ? 'DESC' : 'ASC';
        const { rows } = await db.query<{ accountId: number; amount: string }>(
          `SELECT r.account_id AS "accountId", r.amount::text AS amount FROM rich_list r
            WHERE r.denom = 'd' AND r.amount > 0 ORDER BY r.amount ${dir}, r.account_id ${dir} OFFSET $1 LIMIT 8`,
          [offset],
        );
        return { rows: rows.slice(0, 7), hasMore: rows.length > 7 };
      };
      const expectPagesEqualWalk = async () => {
        for (const desc of [true, false]) {
          for (const offset of [99, 100, 101, 237, 300, 399, 431, 436, 460]) {
            const page = await reader.holders('d', { limit: 7, offset, desc }, { countTotal: true });
            const shown = page.rows.map(({ accountId, amount }) => ({ accountId, amount }));
            expect({ rows: shown, hasMore: page.hasMore }, `offset ${offset} desc ${desc}`).toEqual(
              await walk(offset, desc),
            );
          }
        }
      };
      // Ties on purpose: the marks must follow the (amount, account) order exactly.
      const holders = Array.from(
        { length: 440 },
        (_, i) => [i + 1, BigInt(((i * 7) % 37) + 1)] as [number, bigint],
      );
      await version(holders);
      await expectPagesEqualWalk();
      // Once learnt, a deep page is one statement that starts after a mark, not an offset walk.
      statements.length = 0;
      await reader.holders('d', { limit: 7, offset: 237, desc: true }, { countTotal: false });
      expect(statements).toHaveLength(1);
      expect(statements[0]!.sql).toMatch(/\(r\.amount, r\.account_id\) </);
      // Balances move across the marks, some to zero, new holders appear: every mark is stale.
      await version([
        ...holders.filter(([n]) => n % 3 === 0).map(([n]): [number, bigint] => [n, BigInt(n % 5)]),
        ...Array.from({ length: 30 }, (_, i): [number, bigint] => [1000 + i, BigInt(i % 4) + 20n]),
      ]);
      await expectPagesEqualWalk();
    } finally {
      await dispose();
    }
  });

  it('a page statement is planned once per connection: PostgreSQL keeps its generic plan', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedAccountBalances(db, `'d1'`, 'id');
      const { reader, statements } = recordingReader(db);
      await reader.holders('d1', { limit: 100, offset: 0, desc: true }, { countTotal: true });
      const first = statements[0]!;
      // Auto mode (the default) tries custom plans five times, then keeps a generic plan whose
      // estimate is no worse; with a `LIMIT $n` it never did, and re-planned every page.
      const plans = await db.transaction(async (tx) => {
        await tx.query(`PREPARE first_page AS ${first.sql}`);
        const args = first.params.map((p) => `'${String(p)}'`).join(', ');
        for (let i = 0; i < 8; i++) await tx.query(`EXECUTE first_page(${args})`);
        const { rows } = await tx.query<{ generic: number }>(
          `SELECT generic_plans AS generic FROM pg_prepared_statements WHERE name = 'first_page'`,
        );
        await tx.query('DEALLOCATE first_page');
        return rows[0]?.generic;
      });
      expect(plans).toBeGreaterThanOrEqual(3);
    } finally {
      await dispose();
    }
  });
});
