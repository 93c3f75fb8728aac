import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorUrls, VmType } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { defaultMigrationsDir, migrate, migrationNames } from '../../src/store/migrations/migrate.js';
import { routeAnswers, type RouteAnswers } from '../api/route-answers.js';
import { testDbFactories } from '../helpers/db.js';
import { ingestFrom } from '../helpers/ingest.js';
import { ingestByStream, type StreamTables } from '../helpers/stream-tables.js';
import { copyRows, dataTables } from '../helpers/table-copy.js';

/**
 * Every migration on a populated database. A simulator chain indexed into a fully migrated
 * database gives the reference answers. Then, for each migration k after the first: a database
 * migrated through k-1 is filled with the reference's rows (the tables and columns it has, found in
 * information_schema), migrations k.. are applied, the indexer runs against the same simulator
 * until every stage has caught up (a stage whose tables k-1 lacked starts from scratch, as after a
 * real upgrade), and every route class must answer byte for byte as the reference does. New
 * migrations are covered without code here.
 *
 * The rows at k-1 are today's writers' rows restricted to k-1's schema, not an old release's: a
 * migration that converts an old row format needs rows in that format from its own test.
 */
/**
 * Each of the 18 upgrades ends by asking every route class of this chain, so the file's CPU follows
 * the chain's size. 12 blocks (1-5 txs, half of them NFT operations) still fill every table the
 * first test names on each VM and answer every request with 200 (at 8, Wasm and EVM answer one
 * request otherwise); 24 proved nothing more.
 */
const HEAD = 12;

/**
 * Migrations creating tables the block stream fills, that no later run can fill for heights indexed
 * before them: a database from before one has, after the upgrade, no rows there for those heights
 * (NFTs are collected with the blocks; an upgrade across 0003 needs a re-index to list the NFTs of
 * earlier heights). Upgrades across one are compared with the reference without those tables' rows.
 */
const NOT_BACKFILLED = new Set(['20261124_0003_nft.sql']);

// One engine, to keep the file's time down: PostgreSQL when TEST_DATABASE_URL is set (what
// production runs; native, so less CPU than PGlite's WebAssembly build for the same SQL), else
// PGlite. Both are PostgreSQL running the same SQL files; the drivers and PGlite's snapshots are
// covered on both by every other storage test.
const factory = testDbFactories().at(-1)!;
const names = await migrationNames();
const VMS: readonly VmType[] = ['move', 'wasm', 'evm'];
const upgrades = await upgradesByVm();
// Through the last migration rather than the default: on PGlite every database of this file then
// clones one unmigrated snapshot (one initdb, not two).
const createMigrated = () => factory.create({ upTo: names.at(-1)! });

describe.each(VMS)(`upgrading a populated %s database (${factory.name})`, (vm) => {
  let sim: Simulator;
  let urls: SimulatorUrls;
  let reference: { db: Db; dispose(): Promise<void> };
  // Each upgrade starts from an empty schema in this one database: dropping a schema costs far
  // less than creating a database (or cloning a PGlite snapshot) per upgrade.
  let scratch: { db: Db; dispose(): Promise<void> };
  let streams: StreamTables;
  let expected: RouteAnswers;
  const expectedWithout = new Map<string, Promise<RouteAnswers>>();
  beforeAll(async () => {
    sim = createSimulator({
      vm,
      chainId: `upgrade-${vm}-1`,
      head: HEAD,
      txsPerBlock: '1-5',
      accounts: 8,
      nftShare: 0.5,
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
    });
    urls = await sim.listen();
    reference = await createMigrated();
    streams = await ingestByStream({ db: reference.db, vm, urls, head: HEAD });
    expected = await routeAnswers(reference.db, sim, HEAD);
    scratch = await factory.create({ upTo: names[0]! });
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
    await reference?.dispose();
    await scratch?.dispose();
  });

  it('the reference has rows in every table its chain fills, and answers with them', async () => {
    const empty = [];
    for (const table of await dataTables(reference.db)) {
      const { rows } = await reference.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`);
      if (rows[0]!.n === 0) empty.push(table);
    }
    // Move and Wasm chains have no EVM txs (the evm_ tables), Wasm bank denoms no other
    // spelling (rich_list_denom), a database indexed from genesis no NFT receipt gap
    // (nft_receipt_coverage), a chain without unknown message types no undecoded tx
    // (undecoded_tx: test/ingest/undecoded.test.ts), and no unfinished `reindex` (reindex_job);
    // every other table must have rows for the upgrades to carry.
    const mayBeEmpty = (t: string) =>
      (vm !== 'evm' && t.startsWith('evm_')) ||
      (vm === 'wasm' && t === 'rich_list_denom') ||
      t === 'nft_receipt_coverage' ||
      t === 'undecoded_tx' ||
      t === 'reindex_job';
    expect(empty.filter((t) => !mayBeEmpty(t))).toEqual([]);
    const answered = [...expected.values()].filter((a) => a.startsWith('200 ')).length;
    expect(answered).toBe(expected.size);
  });

  // The first upgrade applies every migration and builds the answers without NFT rows as well:
  // over a minute on PGlite when the host is loaded.
  const timeout = 300_000;
  it.each(upgrades.filter((u) => u.vms.includes(vm)))(
    'from $from through $to',
    { timeout },
    async ({ from }) => {
      const old = scratch.db;
      await old.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      await migrate(old, { upTo: from });
      await copyRows(reference.db, old);
      await dropCheckpointsOfMissingStages(old, streams);
      const lost = await migrateStepwise(old);
      await ingestFrom({ db: old, vm, urls, untilHeight: HEAD });
      const want = lost.size === 0 ? expected : await answersWithout(lost);
      expectSameAnswers(await routeAnswers(old, sim, HEAD), want);
    },
  );

  /** The reference's answers once the given tables are empty (copied without their rows). */
  function answersWithout(tables: Set<string>): Promise<RouteAnswers> {
    const key = [...tables].sort().join(',');
    let answers = expectedWithout.get(key);
    if (!answers) {
      answers = (async () => {
        const db = await createMigrated();
        try {
          await copyRows(reference.db, db.db, { skip: tables });
          return await routeAnswers(db.db, sim, HEAD);
        } finally {
          await db.dispose();
        }
      })();
      expectedWithout.set(key, answers);
    }
    return answers;
  }
});

/**
 * Which VMs each upgrade runs on. The upgrade from the first migration applies every later one to a
 * populated database, and starts every stage whose tables it lacked from scratch (the rich list on
 * each VM, internal txs on EVM): all three VMs. Each later upgrade, from k-1, proves what migration
 * k adds to that, and its SQL is the same on every VM; what differs by VM is which of its tables
 * hold rows. A migration naming an evm_ table runs on EVM (the one chain with rows there); one
 * naming only common tables on one VM, the three taking turns in migration order.
 */
async function upgradesByVm(): Promise<{ from: string; to: string; vms: VmType[] }[]> {
  const sql = await Promise.all(
    names.map(async (n) =>
      (await readFile(path.join(defaultMigrationsDir(), n), 'utf8')).replace(/--.*$/gm, ''),
    ),
  );
  const tables = new Set(sql.flatMap((text) => [...text.matchAll(/CREATE TABLE (\w+)/gi)].map((m) => m[1]!)));
  let turn = 0;
  return names.slice(1).map((to, i) => {
    const named = [...sql[i + 1]!.matchAll(/\b(?:TABLE|INTO|UPDATE|ON)\s+(\w+)/gi)]
      .map((m) => m[1]!)
      .filter((t) => tables.has(t));
    if (named.length === 0) throw new Error(`${to} names no table this test knows`);
    const vms: VmType[] =
      i === 0 ? [...VMS] : named.some((t) => t.startsWith('evm_')) ? ['evm'] : [VMS[turn++ % VMS.length]!];
    return { from: names[i]!, to, vms };
  });
}

/**
 * A stage whose tables the old schema lacks did not exist in that release, so it had no checkpoint:
 * the upgraded indexer starts it from scratch. (The block stream always existed.)
 */
async function dropCheckpointsOfMissingStages(db: Db, streams: StreamTables): Promise<void> {
  const have = new Set(await dataTables(db));
  const missing = [...streams.tables]
    .filter(([stream, tables]) => stream !== streams.blocks && [...tables].some((t) => !have.has(t)))
    .map(([stream]) => stream);
  await db.query('DELETE FROM checkpoint WHERE stream = ANY($1)', [missing]);
}

/**
 * Applies the pending migrations; returns the tables NOT_BACKFILLED ones created. Each of those is
 * applied alone, so the tables before and after it tell which it made; the rest in one `migrate`
 * (one call per migration re-read the applied ones each time: quadratic in their number).
 */
async function migrateStepwise(db: Db): Promise<Set<string>> {
  const lost = new Set<string>();
  for (const name of names.filter((n) => NOT_BACKFILLED.has(n))) {
    const previous = names[names.indexOf(name) - 1];
    if (previous !== undefined) await migrate(db, { upTo: previous });
    const before = new Set(await dataTables(db));
    if ((await migrate(db, { upTo: name })).applied.length === 0) continue;
    for (const table of await dataTables(db)) if (!before.has(table)) lost.add(table);
  }
  await migrate(db);
  return lost;
}

/** Same URLs, same status, content type and body; the message shows the first difference. */
function expectSameAnswers(got: RouteAnswers, want: RouteAnswers): void {
  const urls = [...new Set([...want.keys(), ...got.keys()])];
  const differ = urls.filter((url) => got.get(url) !== want.get(url));
  const first = differ[0];
  const detail =
    first === undefined
      ? ''
      : `${differ.length} of ${urls.length} answers differ; first ${first}\nwant: ${want.get(first)?.slice(0, 600)}\ngot:  ${got.get(first)?.slice(0, 600)}`;
  expect(differ, detail).toEqual([]);
}
