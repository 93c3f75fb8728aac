import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { silentLogger } from '../../shared/logger.js';
import { createMetricsRegistry } from '../../shared/metrics.js';
import type { CometClient } from '../../node/cometbft.js';
import type { RawBlock } from '../../node/types.js';
import type { Db, Queryable } from '../../store/driver/db.js';
import { bumpStoreGeneration } from '../../store/writers/store-generation.js';
import { createIngestMetrics } from '../metrics.js';
import { createBlockHead } from './block-head.js';
import type { BalanceDelta } from '../collect/rich-list-deltas.js';
import type { BalanceSource } from './rich-list-sources.js';
import { createRichListDerivation } from './rich-list.js';
import { createKeptBlocks, type KeptBlocks } from './kept-blocks.js';
import type { AssetDelta } from '../collect/rich-list-bank.js';
import { runDerivation } from './runner.js';

const A = 'aa'.repeat(20);
const B = 'bb'.repeat(20);
const C = 'cc'.repeat(20);
/** A minter/burner module account. */
const M = 'dd'.repeat(20);

/** A node whose blocks carry no events of their own: the source below says what moved. */
const comet: CometClient = {
  status: async () => ({ chainId: 'test-1', latestHeight: 3, earliestHeight: 1 }),
  fetchBlocks: async (heights) =>
    heights.map((height): RawBlock => ({
      height,
      chainId: 'test-1',
      hash: '00',
      time: '2026-01-01T00:00:00Z',
      proposerAddress: '00',
      txs: [],
      txResults: [],
      finalizeBlockEvents: [],
    })),
};

/** What the events of each height move, as a source says (assets named as their stored denoms). */
const eventsAt = (
  byHeight: Record<number, BalanceDelta[]>,
  onExtract?: (height: number) => void,
): Pick<BalanceSource, 'extract' | 'deltas'> => ({
  extract: (block) => {
    onExtract?.(block.height);
    return (byHeight[block.height] ?? []).map((d) => ({
      asset: d.denom,
      account: d.account,
      amount: d.amount,
    }));
  },
  deltas: async (extracted) =>
    extracted.map((d) => ({ denom: d.asset, account: d.account, amount: d.amount })),
});

/** A start snapshot of these balances (account hex). */
const snapshotOf =
  (...rows: Array<[denom: string, account: string, amount: bigint]>): BalanceSource['snapshot'] =>
  async () => ({
    rows: rows.map(([denom, account, amount]) => ({ denom, account: Buffer.from(account, 'hex'), amount })),
    aliases: [],
    whole: [],
  });

type Holdings = Record<string, Array<{ denom: string; amount: bigint }>>;

/** A node's `holdingsAt` answering from `held` (by account hex), noting `*:<account>@<height>` in `asked`. */
const holdingsFrom =
  (asked: string[], held: Holdings): NonNullable<BalanceSource['holdingsAt']> =>
  async (accounts, height) => {
    asked.push(...accounts.map((a) => `*:${a.slice(0, 2)}@${height}`));
    return accounts.map((a) => held[a] ?? []);
  };

/** `amount` utok from one account to another. */
const transfer = (from: string, to: string, amount: bigint): BalanceDelta[] => [
  { denom: 'utok', account: from, amount: -amount },
  { denom: 'utok', account: to, amount },
];

/** Heights 1..3 as the block stream stores them. */
const insertBlocks = (db: Db) =>
  db.query(
    `INSERT INTO block (height, hash, "timestamp", block_time_ms, proposer, gas_used, gas_wanted, tx_count, total_fee)
     SELECT h, '\\x00', now(), 0, '', 0, 0, 0, '[]' FROM generate_series(1, 3) h`,
  );

const runToEnd = async (
  db: Db,
  source: BalanceSource,
  batchHeights = 1,
  options: { comet?: CometClient; kept?: KeptBlocks<AssetDelta> } = {},
) => {
  const head = createBlockHead(() => 3);
  head.finish();
  const deps = {
    db,
    logger: silentLogger(),
    metrics: createIngestMetrics(createMetricsRegistry({ defaultMetrics: false })),
    head,
  };
  const stage = createRichListDerivation({
    db,
    comet: options.comet ?? comet,
    source,
    ...(options.kept ? { kept: options.kept } : {}),
  });
  await runDerivation(stage, deps, { signal: new AbortController().signal, batchHeights });
};

/** `db` counting the statements matching `pattern`, in its transactions too (`count` can be reset). */
const countingStatements = (db: Db, pattern: RegExp) => {
  const counter = { count: 0, db };
  const counting = (q: Queryable): Queryable => ({
    query: <Row>(sql: string, params?: readonly unknown[]) => {
      if (pattern.test(sql)) counter.count += 1;
      return q.query<Row>(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  counter.db = { ...db, ...counting(db), transaction: (fn) => db.transaction((tx) => fn(counting(tx))) };
  return counter;
};

/** Resolves once the rich-list checkpoint stands at `height` or above. */
const committedAt = async (db: Db, height: number) => {
  for (;;) {
    const { rows } = await db.query<{ h: number }>(
      "SELECT height::int AS h FROM checkpoint WHERE stream = 'rich_list'",
    );
    if ((rows[0]?.h ?? 0) >= height) return;
    await new Promise((r) => setTimeout(r, 10));
  }
};

const balances = async (db: Db) => {
  const { rows } = await db.query<{ denom: string; account: Uint8Array; amount: string }>(
    `SELECT r.denom, d.account, r.amount::text AS amount FROM rich_list r JOIN account_dict d ON d.id = r.account_id
      ORDER BY r.denom, d.account`,
  );
  return rows.map((r) => [r.denom, Buffer.from(r.account).toString('hex'), r.amount]);
};

describe.each(testDbFactories())('rich-list stage on $name', (factory) => {
  it('reads first-seen balances and balances driven below zero from the node, and keeps holder counts', async () => {
    const { db, dispose } = await factory.create();
    try {
      await insertBlocks(db);
      const asked: string[] = [];
      // What the node says at each height; the events of height 2 overstate A's spending.
      const node: Record<number, Record<string, bigint>> = { 2: { [A]: 0n, [B]: 150n }, 3: { [C]: 7n } };
      const source: BalanceSource = {
        ...eventsAt({
          2: transfer(A, B, 150n),
          3: [{ denom: 'utok', account: C, amount: 3n }],
        }),
        aliases: () => [{ alias: 'tok', denom: 'utok' }],
        balancesAt: async (pairs, height) => {
          asked.push(...pairs.map((p) => `${p.account.slice(0, 2)}@${height}`));
          return pairs.map((p) => node[height]![p.account] ?? 0n);
        },
        snapshot: snapshotOf(['utok', A, 100n]),
        excluded: async () => new Set(),
      };
      await runToEnd(db, source);
      // B and C first seen (read from the node), A driven below zero at 2 (read again); the next
      // batch is read while one is written, so the order varies.
      expect(asked.sort()).toEqual(['aa@2', 'bb@2', 'cc@3']);
      expect(await balances(db)).toEqual([
        ['utok', A, '0'],
        ['utok', B, '150'],
        ['utok', C, '7'],
      ]);
      const holders = await db.query('SELECT denom, holders::int AS holders FROM rich_list_holders');
      expect(holders.rows).toEqual([{ denom: 'utok', holders: 2 }]);
      const alias = await db.query('SELECT alias, denom FROM rich_list_denom');
      expect(alias.rows).toEqual([{ alias: 'tok', denom: 'utok' }]);
      const cp = await db.query("SELECT height FROM checkpoint WHERE stream = 'rich_list'");
      expect(cp.rows).toEqual([{ height: 3 }]);
    } finally {
      await dispose();
    }
  });

  it('never stores an excluded account: purges what an earlier run stored, re-reads the list only when an account with no stored balance appears', async () => {
    const { db, dispose } = await factory.create();
    try {
      await insertBlocks(db);
      // A first run (before module accounts were excluded) stored M like any holder.
      const firstRun: BalanceSource = {
        ...eventsAt({}),
        aliases: () => [],
        balancesAt: async (pairs) => pairs.map(() => 0n),
        snapshot: snapshotOf(['utok', A, 100n], ['utok', M, 500n], ['uother', M, 9n]),
        excluded: async () => new Set(),
      };
      await runToEnd(db, firstRun);
      expect(await balances(db)).toEqual([
        ['uother', M, '9'],
        ['utok', A, '100'],
        ['utok', M, '500'],
      ]);
      await db.query("UPDATE checkpoint SET height = 1 WHERE stream = 'rich_list'");

      // The next run learns that M is a module account only when it reads the list again, which it
      // does when a batch touches an account with no stored balance in any denom (B at 3), not for
      // a stored account's new denom (A's unew at 2).
      const rereads: Array<[height: number, reread: boolean]> = [];
      let learnt = new Set<string>();
      const asked: string[] = [];
      let fetching = 0;
      const secondRun: BalanceSource = {
        ...eventsAt(
          {
            2: [
              { denom: 'unew', account: A, amount: 3n },
              { denom: 'utok', account: M, amount: -5n },
            ],
            3: transfer(M, B, 40n),
          },
          (height) => (fetching = height),
        ),
        aliases: () => [],
        balancesAt: async (pairs, height) => {
          asked.push(...pairs.map((p) => `${p.denom}:${p.account.slice(0, 2)}@${height}`));
          return pairs.map((p) => (p.account === A ? 3n : 40n));
        },
        snapshot: async () => {
          throw new Error('the stream has a checkpoint: no snapshot');
        },
        excluded: async (reread) => {
          rereads.push([fetching, reread]);
          if (reread) learnt = new Set([M]);
          return learnt;
        },
      };
      await runToEnd(db, secondRun);
      expect(rereads).toEqual([
        [2, false],
        [3, false],
        [3, true],
      ]);
      expect(asked.sort()).toEqual(['unew:aa@2', 'utok:bb@3']);
      expect(await balances(db)).toEqual([
        ['unew', A, '3'],
        ['utok', A, '100'],
        ['utok', B, '40'],
      ]);
      const holders = await db.query(
        'SELECT denom, holders::int AS holders FROM rich_list_holders ORDER BY denom',
      );
      expect(holders.rows).toEqual([
        { denom: 'unew', holders: 1 },
        { denom: 'uother', holders: 0 },
        { denom: 'utok', holders: 2 },
      ]);
    } finally {
      await dispose();
    }
  });

  it('deletes an excluded account’s rows at the run’s first batch, and again only once store_generation moved', async () => {
    const { db, dispose } = await factory.create();
    try {
      await insertBlocks(db);
      const purges = countingStatements(db, /DELETE FROM rich_list r USING denoms/);
      const stale = (denom: string) =>
        db.query(
          `WITH d AS (INSERT INTO account_dict (account) VALUES ($1) ON CONFLICT (account) DO UPDATE SET account = EXCLUDED.account RETURNING id)
           INSERT INTO rich_list (denom, account_id, amount) SELECT $2, id, 9 FROM d`,
          [Buffer.from(M, 'hex'), denom],
        );
      const source = (onFetch: (height: number) => Promise<unknown>): BalanceSource => ({
        extract: (block) => {
          fetched.push(onFetch(block.height));
          return [];
        },
        // The batch is written after its deltas: the stale rows are in by then.
        deltas: async () => {
          await Promise.all(fetched);
          return [];
        },
        aliases: () => [],
        balancesAt: async (pairs) => pairs.map(() => 0n),
        snapshot: snapshotOf(['utok', A, 100n]),
        excluded: async () => new Set([M]),
      });
      const fetched: Promise<unknown>[] = [];
      // Rows for M stored behind the run before each batch (as a swapped-in rebuild could): the first
      // batch deletes them, the next one only after the swap's store_generation bump.
      await runToEnd(
        purges.db,
        source(async (height) => {
          // Batch 3 is fetched while batch 2 is written: its stale row and bump come after that commit.
          if (height === 3) await committedAt(db, 2);
          await stale(`u${height}`);
          if (height === 3) await bumpStoreGeneration(db);
        }),
      );
      await Promise.all(fetched);
      expect(purges.count).toBe(2);
      expect(await balances(db)).toEqual([['utok', A, '100']]);

      // A run whose exclusions hold still: one delete, at its first batch.
      await db.query("UPDATE checkpoint SET height = 1 WHERE stream = 'rich_list'");
      purges.count = 0;
      await runToEnd(
        purges.db,
        source(async () => undefined),
      );
      expect(purges.count).toBe(1);
      expect(await balances(db)).toEqual([['utok', A, '100']]);
    } finally {
      await dispose();
    }
  });

  it('never looks for accounts with no stored balance when the source’s exclusions are fixed (EVM)', async () => {
    for (const exclusionsFixed of [false, true]) {
      const { db, dispose } = await factory.create();
      try {
        await insertBlocks(db);
        const lookups = countingStatements(db, /WITH RECURSIVE denoms/);
        const rereads: boolean[] = [];
        await runToEnd(lookups.db, {
          ...eventsAt({ 2: transfer(A, B, 30n), 3: transfer(B, C, 10n) }),
          aliases: () => [],
          // The node's balances (batch 3 may be fetched before batch 2 is stored: B is then read too).
          balancesAt: async (pairs, height) =>
            pairs.map((p) => ({ 2: { [B]: 30n }, 3: { [B]: 20n, [C]: 10n } })[height]![p.account]!),
          snapshot: snapshotOf(['utok', A, 100n]),
          excluded: async (reread) => {
            rereads.push(reread);
            return new Set();
          },
          exclusionsFixed,
        });
        // B (at 2) and C (at 3) hold nothing stored: a list that can change is read again for each.
        expect(lookups.count).toBe(exclusionsFixed ? 0 : 2);
        expect(rereads.filter(Boolean).length).toBe(exclusionsFixed ? 0 : 2);
        expect(await balances(db)).toEqual([
          ['utok', A, '70'],
          ['utok', B, '20'],
          ['utok', C, '10'],
        ]);
      } finally {
        await dispose();
      }
    }
  });

  it('reads the node for an account not read whole (events cannot say its balance), not for one read whole', async () => {
    const { db, dispose } = await factory.create();
    try {
      await insertBlocks(db);
      const asked: string[] = [];
      // The node's holdings. B held 15 utok before the snapshot without being listed in it (an
      // address the node lists no account for), so the events alone would say 30, not 45.
      const holdings: Record<number, Record<string, Array<{ denom: string; amount: bigint }>>> = {
        2: {
          [B]: [
            { denom: 'utok', amount: 45n },
            { denom: 'uextra', amount: 9n },
          ],
        },
      };
      const source: BalanceSource = {
        ...eventsAt({
          2: transfer(A, B, 30n),
          // A first touches unew and uneg, B first touches unew: both accounts are read whole now.
          3: [
            { denom: 'unew', account: A, amount: 2n },
            { denom: 'unew', account: B, amount: 5n },
            { denom: 'uneg', account: A, amount: -3n },
          ],
        }),
        aliases: () => [],
        // Only the correction of a balance driven below zero asks per pair.
        balancesAt: async (pairs, height) => {
          asked.push(...pairs.map((p) => `${p.denom}:${p.account.slice(0, 2)}@${height}`));
          return pairs.map(() => 4n);
        },
        holdingsAt: async (accounts, height) => {
          asked.push(...accounts.map((a) => `*:${a.slice(0, 2)}@${height}`));
          return accounts.map((a) => holdings[height]?.[a] ?? []);
        },
        snapshot: async () => ({
          rows: [{ denom: 'utok', account: Buffer.from(A, 'hex'), amount: 100n }],
          aliases: [],
          whole: [A],
        }),
        excluded: async () => new Set(),
      };
      await runToEnd(db, source);
      expect(asked.sort()).toEqual(['*:bb@2', 'uneg:aa@3']);
      expect(await balances(db)).toEqual([
        ['uextra', B, '9'],
        ['uneg', A, '4'],
        ['unew', A, '2'],
        ['unew', B, '5'],
        ['utok', A, '70'],
        ['utok', B, '45'],
      ]);
    } finally {
      await dispose();
    }
  });

  it('adds a first touch in a denom the snapshot held whole to zero, unless the account was excluded then', async () => {
    const { db, dispose } = await factory.create();
    try {
      await insertBlocks(db);
      const asked: string[] = [];
      // The node's holdings: C held 4 uhalf before the snapshot without being listed in it (the
      // snapshot holds none of uhalf's supply of 4), B's 31 are its 30 + 1 from the events.
      const holdings: Holdings = {
        [C]: [
          { denom: 'uhalf', amount: 9n },
          { denom: 'utok', amount: 2n },
        ],
        [M]: [{ denom: 'utok', amount: 501n }],
        [B]: [{ denom: 'utok', amount: 31n }],
      };
      let excludedReads = 0;
      const source: BalanceSource = {
        ...eventsAt({
          2: [...transfer(A, B, 30n), { denom: 'utok', account: M, amount: 1n }],
          3: [
            { denom: 'uhalf', account: C, amount: 5n },
            { denom: 'utok', account: C, amount: 2n },
            { denom: 'utok', account: B, amount: 1n },
          ],
        }),
        aliases: () => [],
        balancesAt: async (pairs) => pairs.map(() => 0n),
        holdingsAt: holdingsFrom(asked, holdings),
        snapshot: snapshotOf(['utok', A, 100n], ['utok', M, 500n]),
        supplyAt: async (denom, height) => (height === 1 ? { utok: 600n, uhalf: 4n }[denom] : undefined),
        // M is excluded at the snapshot only (its utok was never stored, so it must be read).
        excluded: async () => (excludedReads++ === 0 ? new Set([M]) : new Set()),
      };
      await runToEnd(db, source);
      expect(asked.sort()).toEqual(['*:cc@3', '*:dd@2']);
      expect(await balances(db)).toEqual([
        ['uhalf', C, '9'],
        ['utok', A, '70'],
        ['utok', B, '31'],
        ['utok', C, '2'],
        ['utok', M, '501'],
      ]);
    } finally {
      await dispose();
    }
  });

  it('a resumed run holds a denom whole where the stored balances and the excluded accounts hold its supply at the checkpoint', async () => {
    const { db, dispose } = await factory.create();
    try {
      await insertBlocks(db);
      // A first run stores A's 100 utok (M's 500 are left out) and moves no balance.
      const snapshot = snapshotOf(['utok', A, 100n], ['utok', M, 500n]);
      await runToEnd(db, {
        ...eventsAt({}),
        aliases: () => [],
        balancesAt: async (pairs) => pairs.map(() => 0n),
        snapshot,
        excluded: async () => new Set([M]),
      });
      await db.query("UPDATE checkpoint SET height = 1 WHERE stream = 'rich_list'");
      const asked: string[] = [];
      const resumed = (utokSupply: bigint): BalanceSource => ({
        ...eventsAt({ 2: transfer(A, B, 30n), 3: [{ denom: 'uhalf', account: C, amount: 5n }] }),
        aliases: () => [],
        balancesAt: async (pairs) => pairs.map(() => 0n),
        holdingsAt: holdingsFrom(asked, {
          [M]: [{ denom: 'utok', amount: 500n }],
          [B]: [{ denom: 'utok', amount: 37n }],
          [C]: [{ denom: 'uhalf', amount: 9n }],
        }),
        snapshot: async () => {
          throw new Error('the stream has a checkpoint: no snapshot');
        },
        // At the checkpoint (1): utok as the run counts it; uhalf held by someone it does not count.
        supplyAt: async (denom, height) =>
          height === 1 ? { utok: utokSupply, uhalf: 4n }[denom] : undefined,
        excluded: async () => new Set([M]),
      });
      await runToEnd(db, resumed(600n));
      expect(asked.sort()).toEqual(['*:cc@3', '*:dd@1']);
      expect(await balances(db)).toEqual([
        ['uhalf', C, '9'],
        ['utok', A, '70'],
        ['utok', B, '30'],
      ]);

      // Where the sums differ (B held 7 the run did not count), B's first touch is read.
      await db.query("UPDATE checkpoint SET height = 1 WHERE stream = 'rich_list'");
      await db.query(
        `DELETE FROM rich_list r USING account_dict d WHERE d.id = r.account_id AND d.account = ANY($1)`,
        [[Buffer.from(B, 'hex'), Buffer.from(C, 'hex')]],
      );
      await db.query("UPDATE rich_list SET amount = 100 WHERE denom = 'utok'");
      asked.length = 0;
      await runToEnd(db, resumed(607n));
      expect(asked.sort()).toEqual(['*:bb@2', '*:cc@3', '*:dd@1']);
      expect(await balances(db)).toEqual([
        ['uhalf', C, '9'],
        ['utok', A, '70'],
        ['utok', B, '37'],
      ]);
    } finally {
      await dispose();
    }
  });

  it('takes the balance changes the block stream kept, and fetches from the node only the heights not kept', async () => {
    const { db, dispose } = await factory.create();
    try {
      await insertBlocks(db);
      const fetched: number[] = [];
      const counting: CometClient = {
        ...comet,
        fetchBlocks: async (heights, consumer) => {
          fetched.push(...heights);
          return comet.fetchBlocks(heights, consumer);
        },
      };
      const source: BalanceSource = {
        ...eventsAt({ 1: transfer(A, B, 1n), 2: transfer(A, B, 10n), 3: transfer(A, B, 100n) }),
        aliases: () => [],
        balancesAt: async (pairs) => pairs.map(() => 0n),
        snapshot: snapshotOf(['utok', A, 1000n], ['utok', B, 1n]),
        excluded: async () => new Set(),
      };
      // The block stream fetched heights 1 and 3 (two changes each) and kept both; not height 2.
      const kept = createKeptBlocks((block) => source.extract(block), 4);
      kept.record(await comet.fetchBlocks([1, 3]));
      await runToEnd(db, source, 1, { comet: counting, kept });
      expect(fetched).toEqual([2]);
      expect(await balances(db)).toEqual([
        ['utok', A, '890'],
        ['utok', B, '111'],
      ]);
    } finally {
      await dispose();
    }
  });

  it('leaves the excluded accounts out of the snapshot and the first block, without reading them', async () => {
    const { db, dispose } = await factory.create();
    try {
      await insertBlocks(db);
      const asked: string[] = [];
      const source: BalanceSource = {
        ...eventsAt({ 1: [...transfer(M, B, 4n), ...transfer(M, C, 6n)] }),
        aliases: () => [],
        balancesAt: async (pairs) => {
          asked.push(...pairs.map((p) => p.account.slice(0, 2)));
          return pairs.map(() => 6n);
        },
        snapshot: snapshotOf(['utok', A, 100n], ['utok', B, 4n], ['utok', M, 500n]),
        excluded: async () => new Set([M]),
      };
      await runToEnd(db, source);
      expect(asked).toEqual(['cc']);
      expect(await balances(db)).toEqual([
        ['utok', A, '100'],
        ['utok', B, '4'],
        ['utok', C, '6'],
      ]);
    } finally {
      await dispose();
    }
  });
});
