import type { Queryable } from '../driver/db.js';
import { sqlArray } from './sql-array.js';

/** An account edge table and the per-account counts kept beside it. */
export interface EdgeTables {
  edges: 'tx_accounts' | 'evm_tx_accounts' | 'evm_internal_tx_accounts';
  counts: 'tx_account_counts' | 'evm_tx_account_counts' | 'evm_internal_tx_account_counts';
}

export interface AccountEdges {
  accountIds: number[];
  sequences: number[];
  signer: boolean[];
}

/** The edges, and the per-account counts they add to (migration 0002), in one transaction. */
export async function insertAccountEdges(
  tx: Queryable,
  { edges: table, counts }: EdgeTables,
  edges: AccountEdges,
): Promise<void> {
  await tx.query(
    `INSERT INTO ${table} (account_id, sequence, signer) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bool[])`,
    [sqlArray(edges.accountIds), sqlArray(edges.sequences), sqlArray(edges.signer)],
  );
  await addAccountCounts(tx, counts, edges);
}

/** Adds edges to the per-account counts (the bulk builder writes the edges themselves by COPY). */
export async function addAccountCounts(
  tx: Queryable,
  counts: EdgeTables['counts'],
  edges: Pick<AccountEdges, 'accountIds' | 'signer'>,
): Promise<void> {
  await tx.query(
    `INSERT INTO ${counts} (account_id, txs, signed)
       SELECT account_id, count(*), count(*) FILTER (WHERE signer)
         FROM unnest($1::bigint[], $2::bool[]) AS e(account_id, signer) GROUP BY account_id
     ON CONFLICT (account_id) DO UPDATE
       SET txs = ${counts}.txs + excluded.txs, signed = ${counts}.signed + excluded.signed`,
    [sqlArray(edges.accountIds), sqlArray(edges.signer)],
  );
}
