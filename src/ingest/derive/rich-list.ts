import { AppError } from '../../shared/errors.js';
import type { CometClient } from '../../node/cometbft.js';
import type { RawBlock } from '../../node/types.js';
import { INGEST_RETRY, withRetry } from '../../node/retry.js';
import type { Db, Queryable } from '../../store/driver/db.js';
import { asBuffer } from '../../store/writers/dictionary.js';
import {
  createRichListWriter,
  STORED_DENOMS_CTE,
  type BalanceRow,
  type DenomAlias,
} from '../../store/writers/rich-list-writer.js';
import type { AssetDelta } from '../collect/rich-list-bank.js';
import { sumDeltas, type BalanceDelta } from '../collect/rich-list-deltas.js';
import type { KeptBlocks } from './kept-blocks.js';
import type { BalanceSource } from './rich-list-sources.js';
import type { Derivation } from './derivation.js';
import { createPurgedAccounts } from './rich-list-purged.js';

interface RichListBatch {
  to: number;
  /** Denom spellings learnt while reading the batch. */
  aliases: DenomAlias[];
  /** Changes to balances already stored. */
  changes: BalanceRow[];
  /** Node balances at `to` of pairs seen for the first time. */
  firsts: BalanceRow[];
  /** Accounts that are never holders (hex): whatever is stored for them goes. */
  purge: string[];
}

/**
 * Balances per denom (docs/ingest.md §8.3, exact rather than drifting): a snapshot of every
 * account at the first indexed height, then each block's events. A balance the events touch for the
 * first time, and one they would drive below zero, is read from the node at the batch's last height
 * instead, so what is stored is the node's state whatever the events leave out; except a first
 * touch of an account whose every holding was read from the node earlier in this run (the snapshot,
 * or a batch that stored all of that account's holdings): none of its non-zero balances is missing
 * from the table, so one the table lacks was zero, and the events' sum is its balance (below zero,
 * it is read from the node like any other). Likewise a first touch in a denom the run's start held
 * whole: where the snapshot's rows, or on a restart the stored balances plus the excluded
 * accounts' holdings, add up to the denom's supply at that height, an account they leave out held
 * none of it. Accounts the
 * source excludes (Move/Wasm minter/burner module accounts) are left out here, the one place, from
 * the snapshot and every event (the reference skips them on Wasm `transfer` only; skipping them
 * everywhere keeps no drifting balance for an account that is never listed), and a batch deletes
 * anything stored for them (by an earlier version, or before the node listed them) the first time
 * this run excludes them (`createPurgedAccounts`).
 */
interface RichListContext {
  db: Db;
  comet: CometClient;
  source: BalanceSource;
  /** Extracts taken as the block stream fetched the blocks (`source.extract`): those are not fetched again. */
  kept?: KeptBlocks<AssetDelta>;
  signal?: AbortSignal;
}

/** What the stage's steps share: its context, the writer, the accounts read whole, the run's start. */
interface RichListCore {
  ctx: RichListContext;
  writer: ReturnType<typeof createRichListWriter>;
  whole: ReturnType<typeof createWholeAccounts>;
  /** What this run vouches for, from the height it started at (see `startOf`). */
  start: Promise<RunStart | undefined> | undefined;
  purged: ReturnType<typeof createPurgedAccounts>;
}

export function createRichListDerivation(ctx: RichListContext): Derivation<RichListBatch> {
  const core: RichListCore = {
    ctx,
    writer: createRichListWriter(),
    whole: createWholeAccounts(WHOLE_ACCOUNTS),
    start: undefined,
    purged: createPurgedAccounts(),
  };
  return {
    name: 'rich_list',
    init: ({ firstBlockHeight }) => initialSnapshot(core, firstBlockHeight),
    fetch: (from, to) => fetchBatch(core, from, to),
    async write(tx, batch, at) {
      const { writer } = core;
      await writer.purge(
        tx,
        (await core.purged.toPurge(tx, batch.purge)).map((account) => Buffer.from(account, 'hex')),
      );
      const negative = await writer.add(tx, batch.changes);
      await writer.set(tx, batch.firsts);
      if (negative.length > 0)
        await writer.set(tx, await nodeBalances(ctx.source, negative, batch.to, ctx.signal));
      // After the balances, so a denom first stored in this batch is never taken as an alias.
      await writer.aliases(tx, batch.aliases);
      return { sequence: at.sequence, rows: batch.changes.length + batch.firsts.length };
    },
    committed: () => {
      core.writer.committed();
      core.purged.committed();
    },
    rolledBack: () => {
      core.writer.rolledBack();
      core.purged.rolledBack();
    },
  };
}

/** The snapshot of every account at the first indexed height, and the accounts it read whole. */
async function initialSnapshot(core: RichListCore, firstBlockHeight: number) {
  const { source } = core.ctx;
  const snap = await source.snapshot(firstBlockHeight);
  const excluded = await source.excluded(false);
  const rows = holdersOnly(snap.rows.map(toDelta), excluded);
  // An account the node does not list (e.g. created in that very block) but the block's events
  // touch is read on its own.
  const listed = new Set(rows.map(pairKey));
  const [first] = await extractsOf(core.ctx, [firstBlockHeight]);
  const touched = holdersOnly(await source.deltas(first!), excluded);
  const unlisted = touched.filter((d) => !listed.has(pairKey(d)));
  const amounts = await source.balancesAt(unlisted, firstBlockHeight);
  unlisted.forEach((d, i) => rows.push({ ...d, amount: amounts[i]! }));
  // Marked now: the batches fetched next are written only after these rows.
  core.whole.add(snap.whole.filter((a) => !excluded.has(a)));
  if (source.supplyAt)
    core.start = Promise.resolve(runStart(firstBlockHeight, excluded, snap.rows.map(toDelta)));
  return {
    height: firstBlockHeight,
    async write(tx: Queryable) {
      await core.writer.set(tx, rows.map(fromDelta));
      await core.writer.aliases(tx, [...snap.aliases, ...source.aliases()]);
    },
  };
}

/** What this run vouches for: read once, on its first batch (a failed read is tried again). */
function runStartOf(core: RichListCore, from: number): Promise<RunStart | undefined> {
  if (!core.start) {
    // This run's first batch: nothing of it is written yet, so the database holds height from - 1.
    const resuming = resumeAt(core.ctx, from - 1);
    resuming.catch(() => {
      if (core.start === resuming) core.start = undefined;
    });
    core.start = resuming;
  }
  return core.start;
}

async function fetchBatch(core: RichListCore, from: number, to: number): Promise<RichListBatch> {
  const { ctx, whole } = core;
  const { source } = ctx;
  const at = await runStartOf(core, from);
  // Heights below `from` are committed, or held by a fetched batch that is being written.
  ctx.kept?.dropBelow(from);
  const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const perBlock = await Promise.all((await extractsOf(ctx, heights)).map((x) => source.deltas(x)));
  const summed = [...sumDeltas(perBlock.flat()).values()];
  const known = await storedPairs(ctx.db, summed);
  const excluded = await currentExclusions(ctx, summed, known);
  const deltas = holdersOnly(summed, excluded);
  // A first touch of an account read whole before, or of one that held none of those denoms at
  // the snapshot, adds to a zero balance, as a stored one does.
  const isFresh = (d: BalanceDelta) => !known.has(pairKey(d)) && !whole.has(d.account);
  const heldNone = await heldNoneAtStart(source, deltas.filter(isFresh), at);
  const added = deltas.filter((d) => !isFresh(d) || heldNone.has(d.account));
  const firstSeen = deltas.filter((d) => isFresh(d) && !heldNone.has(d.account));
  return {
    to,
    aliases: source.aliases(),
    changes: added.map(fromDelta),
    firsts: await firstBalances(core, firstSeen, to),
    purge: [...excluded],
  };
}

/**
 * The accounts left out. An account with no stored balance in any denom may be a module account a
 * chain upgrade has just added, so the node's list is read again before such an account is first
 * stored.
 */
async function currentExclusions(
  ctx: RichListContext,
  summed: readonly BalanceDelta[],
  known: Set<string>,
): Promise<ReadonlySet<string>> {
  const excluded = await ctx.source.excluded(false);
  if (ctx.source.exclusionsFixed) return excluded;
  const unseen = new Set(summed.filter((d) => !excluded.has(d.account)).map((d) => d.account));
  for (const d of summed) if (known.has(pairKey(d))) unseen.delete(d.account);
  const stored = await storedAccounts(ctx.db, [...unseen]);
  if ([...unseen].some((account) => !stored.has(account))) return ctx.source.excluded(true);
  return excluded;
}

/**
 * Where this run starts: after a snapshot, its rows (the excluded accounts' included); after a
 * restart, the stored balances at the checkpoint plus the excluded accounts' holdings there (the
 * database holds nothing newer before this run's first write).
 */
async function resumeAt(ctx: RichListContext, height: number): Promise<RunStart | undefined> {
  const { source } = ctx;
  if (!source.supplyAt) return undefined;
  const excluded = await source.excluded(false);
  if (excluded.size > 0 && !source.holdingsAt) return undefined;
  const { rows } = await ctx.db.query<{ denom: string; amount: string }>(
    'SELECT denom, sum(amount)::text AS amount FROM rich_list GROUP BY denom',
  );
  const outside = excluded.size > 0 ? await source.holdingsAt!([...excluded], height) : [];
  const held = rows.map((r) => ({ denom: r.denom, amount: BigInt(r.amount) }));
  return runStart(height, excluded, [...held, ...outside.flat()]);
}

/**
 * True when what the run started from holds the denom's whole supply at that height: no balance
 * is negative, so an account it did not count held none of it then.
 */
function heldWhole(source: BalanceSource, at: RunStart, denom: string): Promise<boolean> {
  let answer = at.whole.get(denom);
  if (!answer) {
    answer = source.supplyAt!(denom, at.height).then(
      (s) => s !== undefined && s === (at.held.get(denom) ?? 0n),
    );
    // A failed read is asked again with the batch's retry.
    answer.catch(() => at.whole.delete(denom));
    at.whole.set(denom, answer);
  }
  return answer;
}

/**
 * The accounts of these first-seen pairs that held none of those denoms where the run started
 * (each a denom held whole then, and the account not one left out then), so zero plus the
 * events is each pair's balance.
 */
async function heldNoneAtStart(
  source: BalanceSource,
  firstSeen: readonly BalanceDelta[],
  at: RunStart | undefined,
): Promise<Set<string>> {
  if (!at || firstSeen.length === 0) return new Set();
  const denoms = [...new Set(firstSeen.map((d) => d.denom))];
  const held = await Promise.all(denoms.map((denom) => heldWhole(source, at, denom)));
  const notHeld = new Set(denoms.filter((_, i) => !held[i]));
  const accounts = new Set(firstSeen.map((d) => d.account).filter((a) => !at.excluded.has(a)));
  for (const d of firstSeen) if (notHeld.has(d.denom)) accounts.delete(d.account);
  return accounts;
}

/** Each height's extracted changes: kept ones, the others fetched from the node in one batch. */
async function extractsOf(ctx: RichListContext, heights: readonly number[]): Promise<AssetDelta[][]> {
  const kept = heights.map((h) => ctx.kept?.get(h));
  const missing = heights.filter((_, i) => kept[i] === undefined);
  const fetched = new Map<number, AssetDelta[]>();
  if (missing.length > 0) {
    const blocks = await ctx.comet.fetchBlocks(missing, 'rich_list');
    blocks.forEach((b, i) => fetched.set(missing[i]!, ctx.source.extract(present(b, missing[i]!))));
  }
  return heights.map((h, i) => kept[i] ?? fetched.get(h)!);
}

/**
 * The node's balances at `to` of pairs first seen. Where the source lists an account's holdings,
 * every non-zero one not yet stored is stored too, and the account is read whole from then on.
 */
async function firstBalances(
  core: RichListCore,
  firstSeen: readonly BalanceDelta[],
  to: number,
): Promise<BalanceRow[]> {
  const { source, db } = core.ctx;
  if (!source.holdingsAt) {
    const amounts = await source.balancesAt(firstSeen, to);
    return firstSeen.map((d, i) => fromDelta({ ...d, amount: amounts[i]! }));
  }
  const accounts = [...new Set(firstSeen.map((d) => d.account))];
  const held = await source.holdingsAt(accounts, to);
  const rows = new Map<string, BalanceDelta>();
  // A touched pair the node says is zero is stored as zero, as before.
  for (const d of firstSeen) rows.set(pairKey(d), { ...d, amount: 0n });
  const stored = await storedPairs(
    db,
    accounts.flatMap((account, i) => held[i]!.map((h) => ({ denom: h.denom, account }))),
  );
  accounts.forEach((account, i) => {
    for (const h of held[i]!) {
      const key = pairKey({ denom: h.denom, account });
      // A stored pair this batch does not touch keeps following the events.
      if (rows.has(key) || !stored.has(key)) rows.set(key, { denom: h.denom, account, amount: h.amount });
    }
  });
  core.whole.add(accounts);
  return [...rows.values()].map(fromDelta);
}

/** A run's start: its height, the accounts left out then, and per denom all it counted there. */
interface RunStart {
  height: number;
  excluded: ReadonlySet<string>;
  held: Map<string, bigint>;
  /** heldWhole's answers. */
  whole: Map<string, Promise<boolean>>;
}

function runStart(
  height: number,
  excluded: ReadonlySet<string>,
  counted: readonly { denom: string; amount: bigint }[],
): RunStart {
  const held = new Map<string, bigint>();
  for (const c of counted) held.set(c.denom, (held.get(c.denom) ?? 0n) + c.amount);
  return { height, excluded, held, whole: new Map() };
}

function present(block: RawBlock | undefined, height: number): RawBlock {
  if (!block) throw new AppError('node_behind', `block ${height} is not on the node`, { retryable: true });
  return block;
}

const pairKey = (d: { denom: string; account: string }) => `${d.denom}|${d.account}`;

/** Accounts (hex) remembered as read whole, at most (~100 bytes each); past it they are read again. */
const WHOLE_ACCOUNTS = 500_000;

/** The accounts whose every holding was read from the node in this run and stored. */
function createWholeAccounts(limit: number) {
  const accounts = new Set<string>();
  return {
    has: (account: string) => accounts.has(account),
    add(read: readonly string[]) {
      for (const a of read) if (accounts.size < limit) accounts.add(a);
    },
  };
}

/** The deltas summed per pair, less the accounts that are never holders. */
const holdersOnly = (deltas: Iterable<BalanceDelta>, excluded: ReadonlySet<string>) =>
  [...sumDeltas(deltas).values()].filter((d) => !excluded.has(d.account));

const toDelta = (r: BalanceRow) => ({
  denom: r.denom,
  account: Buffer.from(r.account).toString('hex'),
  amount: r.amount,
});
const fromDelta = (d: { denom: string; account: string; amount: bigint }): BalanceRow => ({
  denom: d.denom,
  account: Buffer.from(d.account, 'hex'),
  amount: d.amount,
});

/** The pairs among these that already have a stored balance, as `denom|accountHex`. */
async function storedPairs(db: Queryable, pairs: readonly { denom: string; account: string }[]) {
  if (pairs.length === 0) return new Set<string>();
  const { rows } = await db.query<{ denom: string; account: Uint8Array }>(
    `SELECT i.denom, i.account FROM unnest($1::text[], $2::bytea[]) AS i(denom, account)
       JOIN account_dict d ON d.account = i.account
       JOIN rich_list r ON r.denom = i.denom AND r.account_id = d.id`,
    [pairs.map((p) => p.denom), pairs.map((p) => asBuffer(Buffer.from(p.account, 'hex')))],
  );
  return new Set(rows.map((r) => `${r.denom}|${Buffer.from(r.account).toString('hex')}`));
}

/** The accounts among these (hex) with a stored balance in any denom. */
async function storedAccounts(db: Queryable, accounts: readonly string[]) {
  if (accounts.length === 0) return new Set<string>();
  // rich_list is keyed by denom first: each (denom, account) by the key, over the stored denoms.
  const { rows } = await db.query<{ account: Uint8Array }>(
    `WITH RECURSIVE ${STORED_DENOMS_CTE}
     SELECT a.account FROM account_dict a
      WHERE a.account = ANY($1::bytea[])
        AND EXISTS (SELECT 1 FROM denoms n JOIN rich_list r ON r.denom = n.denom AND r.account_id = a.id)`,
    [accounts.map((a) => asBuffer(Buffer.from(a, 'hex')))],
  );
  return new Set(rows.map((r) => Buffer.from(r.account).toString('hex')));
}

/**
 * Balances the events drove below zero, read from the node at `height`. This runs inside the
 * batch's transaction, which must not stay open through a node outage (on PGlite it would hold the
 * API's reads): a few quick retries, then the node's error rolls the batch back and the runner
 * commits it again from the checkpoint, waiting for the node (docs/ingest.md §10).
 */
async function nodeBalances(
  source: BalanceSource,
  rows: readonly BalanceRow[],
  height: number,
  signal: AbortSignal | undefined,
): Promise<BalanceRow[]> {
  const pairs = rows.map(toDelta);
  const amounts = await withRetry(() => source.balancesAt(pairs, height), {
    policy: { ...INGEST_RETRY, maxAttempts: IN_TRANSACTION_ATTEMPTS },
    what: `rich list corrections at ${height}`,
    ...(signal ? { signal } : {}),
  });
  return rows.map((r, i) => ({ ...r, amount: amounts[i]! }));
}

/** Node reads inside a batch's transaction: about a third of a second of backoff at most. */
const IN_TRANSACTION_ATTEMPTS = 3;
