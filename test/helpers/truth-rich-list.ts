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
 * The rich list equals the simulator's holders at `height` for every denom: the same accounts with
 * the same positive amounts, the kept holder counts equal the rows, and the stage's checkpoint is
 * at `height`. Returns the number of holders compared.
 */
export async function expectRichListMatchesTruth(db: Db, sim: Simulator, height: number): Promise<number> {
  let compared = 0;
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
      .filter((h) => BigInt(h.amount) > 0n)
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
