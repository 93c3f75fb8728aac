import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import { migrate, migrationNames } from '../../src/store/migrations/migrate.js';
import { COSMOS_TX_TABLES, listAll, listByAccount } from '../../src/store/readers/sequence-tables.js';
import { createBlockWriter } from '../../src/store/writers/block-writer.js';
import type { BlockRows } from '../../src/store/writers/rows.js';
import { prng, testBlock } from '../helpers/block-rows.js';
import { testDbFactories } from '../helpers/db.js';
import { copyRows } from '../helpers/table-copy.js';
import { expectTypeSetCountsMatchEdges } from '../helpers/truth.js';

/**
 * `msgs` + `count_total` totals (migration 0014: counts per message-type set) against the truth of
 * a generated chain whose txs hold 0 to 3 of 8 types (so types share txs) and 1 to 4 of 12 accounts,
 * written through the block writer in batches of several blocks: whole chain and per account (all
 * and signed), for single types, several types, and ids no tx holds. Then the same on a database
 * that held these edges before migration 0014 and got its counts from the backfill.
 */
const TYPES = Array.from({ length: 8 }, (_, i) => `test.v1.Msg${i}`);
const ACCOUNTS = 12;
const BLOCKS = 60;
const MIGRATION = '20261127_0014_msg_type_set_counts.sql';

interface TxTruth {
  types: string[];
  /** Account numbers, signer first. */
  accounts: number[];
}

const account = (n: number) => Buffer.alloc(20, n);

function generateChain(): { blocks: BlockRows[]; txs: TxTruth[] } {
  const random = prng(42);
  const txs: TxTruth[] = [];
  const blocks = Array.from({ length: BLOCKS }, (_, b): BlockRows => {
    const height = b + 1;
    const rows = Array.from({ length: random(6) }, (_, i) => {
      // Duplicates on purpose (a tx with two MsgSends): a type counts once per tx.
      const types = Array.from({ length: random(4) }, () => TYPES[random(TYPES.length)]!);
      const accounts = [...new Set(Array.from({ length: 1 + random(4) }, () => 1 + random(ACCOUNTS)))];
      txs.push({ types: [...new Set(types)], accounts });
      return {
        hash: Buffer.alloc(32, txs.length % 256),
        height,
        signer: account(accounts[0]!),
        accounts: accounts.map(account),
        msgTypes: types,
        data: `{"tx":${txs.length},"i":${i}}`,
      };
    });
    return {
      block: testBlock(height, rows.length),
      txs: rows,
      evmTxs: [],
    };
  });
  return { blocks, txs };
}

/** Writes the blocks in batches of 1 to 9 blocks, as ingest commits them. */
async function ingest(db: Db, blocks: readonly BlockRows[]): Promise<void> {
  const random = prng(7);
  const writer = await createBlockWriter(db);
  for (let at = 0; at < blocks.length;) {
    const size = 1 + random(9);
    await writer.write(blocks.slice(at, at + size));
    at += size;
  }
}

interface Filter {
  types: string[];
  /** Ids no tx holds, added to the filter. */
  unknownIds: number[];
}

/** Single types, pairs and triples (sharing txs), and some with ids nothing holds. */
function filters(): Filter[] {
  const random = prng(99);
  const list: Filter[] = TYPES.map((t) => ({ types: [t], unknownIds: [] }));
  for (let i = 0; i < 9; i++) {
    const types = [...new Set(Array.from({ length: 2 + random(2) }, () => TYPES[random(TYPES.length)]!))];
    list.push({ types, unknownIds: i % 3 === 0 ? [900_001] : [] });
  }
  list.push({ types: [], unknownIds: [900_001, 900_002] });
  return list;
}

async function typeIds(db: Db): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: number; msg_type: string }>('SELECT id, msg_type FROM msg_type_dict');
  return new Map(rows.map((r) => [r.msg_type, r.id]));
}

async function accountIds(db: Db): Promise<Map<number, number>> {
  const { rows } = await db.query<{ id: number; account: Uint8Array }>(
    'SELECT id, account FROM account_dict',
  );
  return new Map(rows.map((r) => [r.account[0]!, Number(r.id)]));
}

const PLAN = { offset: 0, limit: 1, desc: true };

/** Every filter's total, whole chain and for every account (all and signed), against the truth. */
async function expectTotalsMatchTruth(db: Db, txs: readonly TxTruth[]): Promise<void> {
  const ctx = { db, countTimeoutMs: 5_000 };
  const ids = await typeIds(db);
  const accounts = await accountIds(db);
  let checked = 0;
  for (const filter of filters()) {
    const msgTypeIds = [...filter.types.map((t) => ids.get(t)!), ...filter.unknownIds];
    const matching = txs.filter((t) => t.types.some((type) => filter.types.includes(type)));
    const where = `filter ${JSON.stringify(filter)}`;
    const chain = await listAll(ctx, COSMOS_TX_TABLES, PLAN, { msgTypeIds, countTotal: true });
    expect(chain.total, where).toBe(String(matching.length));
    for (let n = 1; n <= ACCOUNTS; n++) {
      for (const signerOnly of [false, true]) {
        const expected = matching.filter((t) =>
          signerOnly ? t.accounts[0] === n : t.accounts.includes(n),
        ).length;
        const page = await listByAccount(ctx, COSMOS_TX_TABLES, PLAN, {
          accountId: accounts.get(n)!,
          signerOnly,
          msgTypeIds,
          countTotal: true,
        });
        expect(page.total, `${where}, account ${n}${signerOnly ? ' as signer' : ''}`).toBe(String(expected));
        if (expected > 0) checked++;
      }
    }
  }
  // The chain is not degenerate: many non-zero account totals, and txs holding several types.
  expect(checked).toBeGreaterThan(60);
  expect(txs.filter((t) => t.types.length >= 2).length).toBeGreaterThan(20);
}

describe.each(testDbFactories())('msgs totals from the type-set counts ($name)', (factory) => {
  const { blocks, txs } = generateChain();
  let reference: { db: Db; dispose(): Promise<void> };
  beforeAll(async () => {
    reference = await factory.create();
    await ingest(reference.db, blocks);
  }, 120_000);
  afterAll(() => reference?.dispose());

  it('equal the truth after ingest, and a rolled-back batch adds nothing', async () => {
    await expectTotalsMatchTruth(reference.db, txs);
    await expectTypeSetCountsMatchEdges(reference.db);
    // A batch whose transaction fails (here: the checkpoint moved, as under a second writer) rolls
    // its counts back with its rows.
    const stale = await createBlockWriter(reference.db);
    await reference.db.query("UPDATE checkpoint SET height = height + 1 WHERE stream = 'blocks'");
    const typed = blocks.find((b) => b.txs.filter((t) => t.msgTypes.length > 0).length >= 2)!;
    await expect(stale.write([{ ...typed, block: { ...typed.block, height: BLOCKS + 1 } }])).rejects.toThrow(
      /checkpoint moved/,
    );
    await reference.db.query("UPDATE checkpoint SET height = height - 1 WHERE stream = 'blocks'");
    await expectTypeSetCountsMatchEdges(reference.db);
    const all = await listAll({ db: reference.db, countTimeoutMs: 5_000 }, COSMOS_TX_TABLES, PLAN, {
      msgTypeIds: [...(await typeIds(reference.db)).values()],
      countTotal: true,
    });
    expect(all.total).toBe(String(txs.filter((t) => t.types.length > 0).length));
  });

  it('equal the truth on a database whose edges predate migration 0014 (backfill)', async () => {
    const names = await migrationNames();
    const before = names[names.indexOf(MIGRATION) - 1]!;
    const old = await factory.create({ upTo: before });
    try {
      await copyRows(reference.db, old.db);
      const { rows } = await old.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'tx_msg_type_sets'",
      );
      expect(rows[0]!.n).toBe(0);
      expect((await migrate(old.db)).applied[0]).toBe(MIGRATION);
      await expectTotalsMatchTruth(old.db, txs);
      await expectTypeSetCountsMatchEdges(old.db);
    } finally {
      await old.dispose();
    }
  });
});
