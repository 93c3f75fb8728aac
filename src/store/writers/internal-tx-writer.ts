import type { EvmInternalTxRow } from '../../wire/evm-internal-tx.js';
import type { Queryable } from '../driver/db.js';
import { insertAccountEdges, type AccountEdges } from './account-edges.js';
import { asBuffer, createAccountDictionary, hexKey, uniqueBytes } from './dictionary.js';

export interface InternalTxWriter {
  /** Stores the frames under the sequences after `fromSequence`; returns the last one. */
  write(tx: Queryable, rows: readonly EvmInternalTxRow[], fromSequence: number): Promise<number>;
  committed(): void;
  rolledBack(): void;
}

/** Rows per INSERT: 6 parameters each, well under PostgreSQL's parameter limit. */
const ROWS_PER_STATEMENT = 4_000;

export function createInternalTxWriter(options: { maxCachedAccounts?: number } = {}): InternalTxWriter {
  const accounts = createAccountDictionary(options.maxCachedAccounts ?? 100_000);
  return {
    async write(tx, rows, fromSequence) {
      if (rows.length === 0) return fromSequence;
      const ids = await accounts.resolve(tx, uniqueBytes(rows.flatMap((r) => r.accounts)));
      const seqs = rows.map((_, i) => fromSequence + 1 + i);
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        const params: unknown[] = [];
        const tuples = rows.slice(start, start + ROWS_PER_STATEMENT).map((r, i) => {
          params.push(
            seqs[start + i],
            r.height,
            asBuffer(r.hash),
            r.data,
            r.error ?? null,
            r.revertReason ?? null,
          );
          const p = i * 6;
          return `($${p + 1}::bigint, $${p + 2}::bigint, $${p + 3}::bytea, $${p + 4}::text, $${p + 5}::text, $${p + 6}::text)`;
        });
        await tx.query(
          `INSERT INTO evm_internal_tx (sequence, height, hash, data, error, revert_reason) VALUES ${tuples.join(',')}`,
          params,
        );
      }
      const edges: AccountEdges = { accountIds: [], sequences: [], signer: [] };
      rows.forEach((r, i) => {
        const caller = r.from && hexKey(r.from);
        for (const account of r.accounts) {
          const key = hexKey(account);
          edges.accountIds.push(ids.get(key)!);
          edges.sequences.push(seqs[i]!);
          edges.signer.push(key === caller);
        }
      });
      await insertAccountEdges(
        tx,
        { edges: 'evm_internal_tx_accounts', counts: 'evm_internal_tx_account_counts' },
        edges,
      );
      return seqs[seqs.length - 1]!;
    },
    committed: () => accounts.commit(),
    rolledBack: () => accounts.discard(),
  };
}
