import type { Queryable } from '../driver/db.js';
import { asBuffer, createAccountDictionary, hexKey } from './dictionary.js';

/** A balance of one account in one denom (lower-cased); `amount` is a change or an absolute value. */
export interface BalanceRow {
  denom: string;
  account: Uint8Array;
  amount: bigint;
}

/** Another spelling of a stored denom. */
export interface DenomAlias {
  alias: string;
  denom: string;
  /** Learnt from an asset's own `lower(symbol)`, which anyone can choose: the weakest kind. */
  bySymbol?: boolean;
}

/**
 * The denoms that have a stored balance, one row each, by a loose index scan of the primary key
 * (a few key look-ups per denom, not a scan of every balance).
 */
export const STORED_DENOMS_CTE = `denoms(denom) AS (
  (SELECT denom FROM rich_list ORDER BY denom LIMIT 1)
  UNION ALL
  SELECT (SELECT r.denom FROM rich_list r WHERE r.denom > d.denom ORDER BY r.denom LIMIT 1)
    FROM denoms d WHERE d.denom IS NOT NULL)`;

export interface RichListWriter {
  /**
   * Adds each row's amount to the stored balance (one row per denom and account); returns the rows
   * whose balance is now negative, with that balance.
   */
  add(tx: Queryable, rows: readonly BalanceRow[]): Promise<BalanceRow[]>;
  /** Sets each balance to the row's amount (one row per denom and account). */
  set(tx: Queryable, rows: readonly BalanceRow[]): Promise<void>;
  /** Deletes every balance of these accounts (ones that are never holders), holder counts adjusted. */
  purge(tx: Queryable, accounts: readonly Uint8Array[]): Promise<void>;
  /**
   * Records other spellings of stored denoms (both sides lower-cased). A spelling under which
   * balances are stored is never an alias. The node's own mappings (bank denom ↔ ERC20 contract,
   * `move/<metadata>`) win over a symbol alias; a symbol alias never replaces another alias, so of
   * two assets with the same symbol the first one learnt keeps it.
   */
  aliases(tx: Queryable, pairs: readonly DenomAlias[]): Promise<void>;
  committed(): void;
  rolledBack(): void;
}

type AccountDictionary = ReturnType<typeof createAccountDictionary>;
type ChangedBalance = { denom: string; account_id: number; amount: string; before: string };

/** Upserts the rows and keeps rich_list_holders in step with balances crossing zero. */
async function applyBalances(
  accounts: AccountDictionary,
  tx: Queryable,
  rows: readonly BalanceRow[],
  mode: 'add' | 'set',
): Promise<BalanceRow[]> {
  if (rows.length === 0) return [];
  const ids = await accounts.resolve(
    tx,
    rows.map((r) => asBuffer(r.account)),
  );
  const accountIds = rows.map((r) => ids.get(hexKey(r.account))!);
  const update = mode === 'add' ? 'rich_list.amount + EXCLUDED.amount' : 'EXCLUDED.amount';
  // Every CTE reads the statement's snapshot, so `old` holds the balances before this upsert.
  const { rows: changed } = await tx.query<ChangedBalance>(
    `WITH input(denom, account_id, amount) AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::numeric[])),
     old AS (SELECT r.denom, r.account_id, r.amount FROM rich_list r
               JOIN input i ON r.denom = i.denom AND r.account_id = i.account_id),
     up AS (INSERT INTO rich_list (denom, account_id, amount) SELECT denom, account_id, amount FROM input
            ON CONFLICT (denom, account_id) DO UPDATE SET amount = ${update}
            RETURNING denom, account_id, amount)
     SELECT up.denom, up.account_id, up.amount::text AS amount, COALESCE(old.amount, 0)::text AS before
       FROM up LEFT JOIN old ON old.denom = up.denom AND old.account_id = up.account_id`,
    [rows.map((r) => r.denom), accountIds, rows.map((r) => r.amount.toString())],
  );
  await countHolders(tx, changed);
  const byId = new Map(rows.map((r, i) => [`${r.denom}|${accountIds[i]}`, r.account]));
  return changed.map((c) => ({
    denom: c.denom,
    account: byId.get(`${c.denom}|${c.account_id}`)!,
    amount: BigInt(c.amount),
  }));
}

/** Per denom, the balances that became positive less those that stopped being. */
async function countHolders(tx: Queryable, changed: readonly ChangedBalance[]): Promise<void> {
  const holders = new Map<string, number>();
  for (const c of changed) {
    const step = Number(BigInt(c.amount) > 0n) - Number(BigInt(c.before) > 0n);
    if (step !== 0) holders.set(c.denom, (holders.get(c.denom) ?? 0) + step);
  }
  if (holders.size === 0) return;
  await tx.query(
    `INSERT INTO rich_list_holders (denom, holders) SELECT * FROM unnest($1::text[], $2::bigint[])
     ON CONFLICT (denom) DO UPDATE SET holders = rich_list_holders.holders + EXCLUDED.holders`,
    [[...holders.keys()], [...holders.values()]],
  );
}

async function purgeAccounts(tx: Queryable, accounts: readonly Uint8Array[]): Promise<void> {
  if (accounts.length === 0) return;
  // The stored denoms by a loose index scan of the primary key, then each (denom, account) by
  // the key too: no scan of every balance.
  await tx.query(
    `WITH RECURSIVE ${STORED_DENOMS_CTE},
     ids AS (SELECT id FROM account_dict WHERE account = ANY($1::bytea[])),
     gone AS (DELETE FROM rich_list r USING denoms d, ids i
               WHERE r.denom = d.denom AND r.account_id = i.id RETURNING r.denom, r.amount),
     held AS (SELECT denom, count(*) AS n FROM gone WHERE amount > 0 GROUP BY denom)
     UPDATE rich_list_holders h SET holders = h.holders - held.n FROM held WHERE h.denom = held.denom`,
    [accounts.map((a) => asBuffer(a))],
  );
}

async function storeAliases(tx: Queryable, pairs: readonly DenomAlias[]): Promise<void> {
  const { strong, bySymbol } = aliasesByKind(pairs);
  // The node's mappings first, replacing a symbol alias; then symbol aliases where no alias is.
  for (const [kind, conflict] of [
    [strong, 'DO UPDATE SET denom = EXCLUDED.denom WHERE rich_list_denom.denom <> EXCLUDED.denom'],
    [bySymbol, 'DO NOTHING'],
  ] as const) {
    if (kind.length === 0) continue;
    await tx.query(
      `INSERT INTO rich_list_denom (alias, denom)
       SELECT i.alias, i.denom FROM unnest($1::text[], $2::text[]) AS i(alias, denom)
        WHERE NOT EXISTS (SELECT 1 FROM rich_list r WHERE r.denom = i.alias)
       ON CONFLICT (alias) ${conflict}`,
      [kind.map((p) => p.alias), kind.map((p) => p.denom)],
    );
  }
}

export function createRichListWriter(): RichListWriter {
  const accounts = createAccountDictionary(100_000);
  return {
    async add(tx, rows) {
      return (await applyBalances(accounts, tx, rows, 'add')).filter((r) => r.amount < 0n);
    },
    async set(tx, rows) {
      await applyBalances(accounts, tx, rows, 'set');
    },
    purge: (tx, gone) => purgeAccounts(tx, gone),
    aliases: (tx, pairs) => storeAliases(tx, pairs),
    committed: () => accounts.commit(),
    rolledBack: () => accounts.discard(),
  };
}

/**
 * One pair per alias (a statement may not upsert a row twice), split by kind: the node's mapping
 * over a symbol alias, the first of a kind over a later one; an alias of itself is dropped.
 */
function aliasesByKind(pairs: readonly DenomAlias[]) {
  const chosen = new Map<string, DenomAlias>();
  for (const p of pairs) {
    const held = chosen.get(p.alias);
    if (p.alias !== p.denom && (!held || (held.bySymbol && !p.bySymbol))) chosen.set(p.alias, p);
  }
  const all = [...chosen.values()];
  return { strong: all.filter((p) => !p.bySymbol), bySymbol: all.filter((p) => p.bySymbol) };
}
