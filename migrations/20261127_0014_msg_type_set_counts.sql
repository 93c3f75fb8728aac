-- Maintained totals for `msgs` + `pagination.count_total` (issue 21). The count was
-- count(DISTINCT sequence) over a filter's type edges: it walked every matching edge, so it grew with
-- the chain (52 % of 5.8M txs for a common type: 17.5 ms of DB CPU per request, docs/benchmarks.md).
--
-- What is counted: txs per *type set*, the sorted, distinct message-type ids a tx holds. A filter F
-- (any of these types) matches a tx exactly when the tx's set intersects F, so
--   total(F) = sum(txs) over the sets that intersect F (`type_ids && F`)
-- is exact for any F; a tx counts once however many of F's types it holds. A per-type count would
-- be exact only for one type (a tx with two of F's types would count twice); correcting it by
-- inclusion-exclusion needs counts of every combination of F's types; a cached count still walks
-- the edges on each miss. A chain has few distinct sets (the message combinations its clients
-- send: 3 on the scale bench's), so the sum reads a handful of rows.
-- Per account the same, with the signed share (`is_signer`): one row per (account, set) the account
-- has had, read by a range of the primary key.
--
-- Keyed by the array itself, not by a set id: both tables are plain upserts for ingest (no id to
-- intern first) and the account sum needs no join; the cost is an int[] (24 bytes + 4 per type)
-- per key instead of a 4-byte id, in tables whose rows number the distinct (account, set) pairs.
-- Txs without messages have no set: no filter matches them. Kept by ingest in the same transaction
-- as tx_msg_types and tx_accounts.
--
-- Backfill: one statement per table from the edges. Locks: SHARE on tx_msg_types and tx_accounts
-- for the backfill, so the two statements count the same edges: API reads (ACCESS SHARE) go on,
-- ingest writes wait (ingest runs migrations at its own start, before it writes). 17.5 s at 1M
-- txs, 15 s of it the account table (docs/benchmarks.md); linear in the edges. lock_timeout
-- bounds the wait for the lock; past it the migration rolls back and the next start tries again.
SET LOCAL lock_timeout = '5s';
LOCK TABLE tx_msg_types, tx_accounts IN SHARE MODE;

CREATE TABLE tx_msg_type_sets (
  type_ids integer[] PRIMARY KEY,
  txs      bigint NOT NULL
);

CREATE TABLE tx_account_msg_type_sets (
  account_id bigint NOT NULL,
  type_ids   integer[] NOT NULL,
  txs        bigint NOT NULL,
  signed     bigint NOT NULL,
  PRIMARY KEY (account_id, type_ids)
);

INSERT INTO tx_msg_type_sets (type_ids, txs)
  SELECT type_ids, count(*)
    FROM (SELECT array_agg(msg_type_id ORDER BY msg_type_id) AS type_ids FROM tx_msg_types GROUP BY sequence) s
   GROUP BY type_ids;

INSERT INTO tx_account_msg_type_sets (account_id, type_ids, txs, signed)
  SELECT a.account_id, s.type_ids, count(*), count(*) FILTER (WHERE a.signer)
    FROM (SELECT sequence, array_agg(msg_type_id ORDER BY msg_type_id) AS type_ids
            FROM tx_msg_types GROUP BY sequence) s
    JOIN tx_accounts a ON a.sequence = s.sequence
   GROUP BY a.account_id, s.type_ids;
