import { expect } from 'vitest';
import { withRetry } from '../../src/node/retry.js';
import { toBech32 } from '../../src/shared/address.js';
import { AppError, errorMessage } from '../../src/shared/errors.js';
import type { Db } from '../../src/store/driver/db.js';
import type { Simulator } from '../../src/sim/types.js';

/**
 * The stored denom a bank denom is kept under, resolved as the route does: the denom itself when
 * balances are stored under it, else its alias (EVM: its ERC20 contract).
 */
export async function storedDenom(db: Db, bankDenom: string): Promise<string> {
  const { rows } = await db.query<{ denom: string }>(
    `SELECT COALESCE((SELECT denom FROM rich_list WHERE denom = $1 LIMIT 1),
                     (SELECT denom FROM rich_list_denom WHERE alias = $1), $1) AS denom`,
    [bankDenom.toLowerCase()],
  );
  return rows[0]!.denom;
}

/**
 * The accounts (bech32) the rich list leaves out on Move and Wasm: the module accounts with the
 * `minter` or `burner` permission in the simulator's own `/cosmos/auth/v1beta1/module_accounts`
 * answer (docs/ingest.md §8.3); none on EVM. Asked over HTTP like ingest does, with a short
 * backoff through the fault-injecting simulators.
 */
export async function excludedModuleAccounts(sim: Simulator): Promise<Set<string>> {
  if (sim.options.vm === 'evm') return new Set();
  const { rest } = await sim.listen();
  const body = await withRetry(
    async () => {
      try {
        const res = await fetch(`${rest}/cosmos/auth/v1beta1/module_accounts`, {
          signal: AbortSignal.timeout(5_000),
        });
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
        return (await res.json()) as {
          accounts: Array<{ base_account: { address: string }; permissions?: string[] | null }>;
        };
      } catch (err) {
        // Every failure here is the simulator's injected fault (or a slow answer): asked again.
        throw new AppError('node_error', `module_accounts: ${errorMessage(err)}`, {
          retryable: true,
          cause: err,
        });
      }
    },
    { policy: { baseMs: 10, capMs: 200, maxAttempts: 20 }, what: 'module_accounts' },
  );
  return new Set(
    body.accounts
      .filter((m) => (m.permissions ?? []).some((p) => p === 'minter' || p === 'burner'))
      .map((m) => m.base_account.address),
  );
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
