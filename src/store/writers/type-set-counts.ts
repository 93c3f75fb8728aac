import type { Queryable } from '../driver/db.js';
import type { AccountEdges } from './account-edges.js';
import { sqlArray } from './sql-array.js';

/**
 * Adds a batch's txs to the per type-set counts (migration 0014: whole chain, and per account with
 * the signed share), from the same type edges and account edges the batch writes, in its
 * transaction: a rolled-back batch adds nothing, a committed one exactly its txs. Each tx's set is
 * built here as the migration's backfill builds it (sorted distinct ids), so both agree; a tx
 * without types has no type edges and no set. One statement: the sets are computed once for both.
 */
export async function addTypeSetCounts(
  tx: Queryable,
  typeEdges: { typeIds: string; seqs: string },
  edges: AccountEdges,
): Promise<void> {
  await tx.query(
    `WITH sets AS (
       SELECT sequence, array_agg(msg_type_id ORDER BY msg_type_id) AS type_ids
         FROM unnest($1::int[], $2::bigint[]) AS m(msg_type_id, sequence) GROUP BY sequence),
     chain AS (
       INSERT INTO tx_msg_type_sets (type_ids, txs) SELECT type_ids, count(*) FROM sets GROUP BY type_ids
       ON CONFLICT (type_ids) DO UPDATE SET txs = tx_msg_type_sets.txs + excluded.txs)
     INSERT INTO tx_account_msg_type_sets (account_id, type_ids, txs, signed)
       SELECT e.account_id, s.type_ids, count(*), count(*) FILTER (WHERE e.signer)
         FROM unnest($3::bigint[], $4::bigint[], $5::bool[]) AS e(account_id, sequence, signer)
         JOIN sets s ON s.sequence = e.sequence
        GROUP BY e.account_id, s.type_ids
     ON CONFLICT (account_id, type_ids) DO UPDATE
       SET txs = tx_account_msg_type_sets.txs + excluded.txs,
           signed = tx_account_msg_type_sets.signed + excluded.signed`,
    [
      typeEdges.typeIds,
      typeEdges.seqs,
      sqlArray(edges.accountIds),
      sqlArray(edges.sequences),
      sqlArray(edges.signer),
    ],
  );
}
