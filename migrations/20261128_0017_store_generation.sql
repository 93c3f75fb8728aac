-- Rows the API holds as immutable can be replaced by a job beside a running API (`reindex`, a
-- re-render): docs/ingest.md §11. Such a job bumps `store_generation` in the same transaction as
-- each batch it commits; every API process reads it with the store's identity before serving a
-- row or an answer it holds in memory, and drops what it holds when it moved (docs/api.md §1.9).
CREATE TABLE store_generation (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  generation bigint NOT NULL
);
INSERT INTO store_generation (generation) VALUES (0);

-- The checkpoint of a `reindex` run (docs/ingest.md §11.2): one row per job (`range` or a stage),
-- the heights it re-derives and the last height whose batch committed (with the batch, in its
-- transaction). A killed run resumes after `done_through`; a finished one deletes its row.
CREATE TABLE reindex_job (
  job          text PRIMARY KEY,
  from_height  bigint NOT NULL,
  to_height    bigint NOT NULL,
  done_through bigint NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now()
);

-- `verify` and `reindex` read and replace the edges of a range of sequences; the edge tables are
-- keyed by account first. Rows are appended in sequence order, so a BRIN index (a few pages, next to
-- nothing for ingest to maintain) finds a range's pages. The builds hold SHARE on each table: API
-- reads go on, ingest waits (it runs migrations at its own start, before it writes).
CREATE INDEX tx_accounts_sequence_brin ON tx_accounts USING brin (sequence);
CREATE INDEX tx_msg_types_sequence_brin ON tx_msg_types USING brin (sequence);
CREATE INDEX tx_account_msg_types_sequence_brin ON tx_account_msg_types USING brin (sequence);
CREATE INDEX evm_tx_accounts_sequence_brin ON evm_tx_accounts USING brin (sequence);
