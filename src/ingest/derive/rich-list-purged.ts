import type { Queryable } from '../../store/driver/db.js';

/**
 * The excluded accounts whose stored rows a committed batch of this run deleted. Nothing this run
 * writes holds them (every row comes through the exclusions), so a later batch deletes only
 * accounts newly excluded: the delete walks every stored denom per account (a loose index scan,
 * ~15 ms a batch on the EVM simulator's chain with every stage on: the stage's largest statement).
 * Rows swapped in by `reindex --stage` were derived by another run, which may have read an older
 * list: the swap bumps `store_generation`, and a moved generation (read in the batch's transaction,
 * after the checkpoint row is locked, so no swap lands between the read and the batch) starts over.
 */
export function createPurgedAccounts() {
  let done = new Set<string>();
  let generation: string | undefined;
  let pending: { accounts: string[]; generation: string } | undefined;
  return {
    async toPurge(tx: Queryable, excluded: readonly string[]): Promise<string[]> {
      if (excluded.length === 0) return [];
      const { rows } = await tx.query<{ g: string }>('SELECT generation::text AS g FROM store_generation');
      const now = rows[0]?.g ?? '';
      if (now !== generation) done = new Set();
      const accounts = excluded.filter((a) => !done.has(a));
      pending = { accounts, generation: now };
      return accounts;
    },
    committed() {
      if (pending === undefined) return;
      if (pending.generation !== generation) done = new Set();
      generation = pending.generation;
      for (const a of pending.accounts) done.add(a);
      pending = undefined;
    },
    rolledBack() {
      pending = undefined;
    },
  };
}
