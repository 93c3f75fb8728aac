import { expect } from 'vitest';
import { toBech32 } from '../../src/shared/address.js';
import type { Db } from '../../src/store/db.js';
import type { Simulator } from '../../src/sim/types.js';

/** The stored denom a bank denom is kept under (EVM: its ERC20 contract, through the aliases). */
export async function storedDenom(db: Db, bankDenom: string): Promise<string> {
  const { rows } = await db.query<{ denom: string }>('SELECT denom FROM rich_list_denom WHERE alias = $1', [
    bankDenom.toLowerCase(),
  ]);
  return rows[0]?.denom ?? bankDenom.toLowerCase();
}

/**
 * The accounts (bech32) the rich list leaves out on Move and Wasm: the module accounts with the
 * `minter` or `burner` permission in the simulator's own `/cosmos/auth/v1beta1/module_accounts`
 * answer (spec/indexer.md §8.3); none on EVM. Asked over HTTP like ingest does, a few times
 * through the fault-injecting simulators.
 */
export async function excludedModuleAccounts(sim: Simulator): Promise<Set<string>> {
  if (sim.options.vm === 'evm') return new Set();
  const { rest } = await sim.listen();
  let lastError: unknown;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const res = await fetch(`${rest}/cosmos/auth/v1beta1/module_accounts`, {
        signal: AbortSignal.timeout(5_000),
      });
      if (res.status !== 200) throw new Error(`module_accounts: HTTP ${res.status}`);
      const body = (await res.json()) as {
        accounts: Array<{ base_account: { address: string }; permissions?: string[] | null }>;
      };
      return new Set(
        body.accounts
          .filter((m) => (m.permissions ?? []).some((p) => p === 'minter' || p === 'burner'))
          .map((m) => m.base_account.address),
      );
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

/**
 * The rich list equals the simulator's holders at `height` for every denom, less the module
 * accounts the rich list leaves out: the same accounts with the same positive amounts, the kept
 * holder counts equal the rows, and the stage's checkpoint is at `height`. Returns the number of
 * holders compared.
 */
export async function expectRichListMatchesTruth(db: Db, sim: Simulator, height: number): Promise<number> {
  let compared = 0;
  const excluded = await excludedModuleAccounts(sim);
  for (const bankDenom of sim.truth.denoms()) {
    const denom = await storedDenom(db, bankDenom);
    const { rows } = await db.query<{ account: Uint8Array; amount: string }>(
      `SELECT d.account, r.amount::text AS amount FROM rich_list r JOIN account_dict d ON d.id = r.account_id
        WHERE r.denom = $1 AND r.amount > 0`,
      [denom],
    );
    const stored = rows
      .map((r) => ({ account: toBech32(r.account, 'init'), amount: r.amount }))
      .sort((a, b) => (a.account < b.account ? -1 : 1));
    const truth = sim.truth
      .holders(bankDenom, height)
      .filter((h) => BigInt(h.amount) > 0n && !excluded.has(h.account))
      .sort((a, b) => (a.account < b.account ? -1 : 1));
    expect(truth.length, bankDenom).toBeGreaterThan(0);
    expect(stored, bankDenom).toEqual(truth);
    compared += truth.length;
    const kept = await db.query<{ holders: number }>(
      'SELECT holders FROM rich_list_holders WHERE denom = $1',
      [denom],
    );
    expect(Number(kept.rows[0]?.holders ?? 0), `${bankDenom} holder count`).toBe(truth.length);
  }
  const negative = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM rich_list WHERE amount < 0');
  expect(negative.rows[0]!.n).toBe(0);
  const checkpoint = await db.query<{ height: number }>(
    "SELECT height FROM checkpoint WHERE stream = 'rich_list'",
  );
  expect(checkpoint.rows[0]?.height).toBe(height);
  return compared;
}

/** A stage's checkpoint height (0 when it has not started). */
export async function stageHeight(db: Db, stream: string): Promise<number> {
  const { rows } = await db.query<{ height: number }>('SELECT height FROM checkpoint WHERE stream = $1', [
    stream,
  ]);
  return rows[0]?.height ?? 0;
}
