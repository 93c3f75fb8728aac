-- Per-account tx counts (all edges, and signed ones), kept by ingest in the same transaction as
-- the edges. `pagination.count_total` on an account's txs is then one row read, however busy the
-- account is (counting a million edges takes ~100 ms; the API answers far faster than that).
-- Edges are unique per (account_id, sequence), so these equal COUNT(DISTINCT sequence).
CREATE TABLE tx_account_counts (
  account_id bigint PRIMARY KEY,
  txs        bigint NOT NULL,
  signed     bigint NOT NULL
);
INSERT INTO tx_account_counts (account_id, txs, signed)
  SELECT account_id, count(*), count(*) FILTER (WHERE signer) FROM tx_accounts GROUP BY account_id;

CREATE TABLE evm_tx_account_counts (
  account_id bigint PRIMARY KEY,
  txs        bigint NOT NULL,
  signed     bigint NOT NULL
);
INSERT INTO evm_tx_account_counts (account_id, txs, signed)
  SELECT account_id, count(*), count(*) FILTER (WHERE signer) FROM evm_tx_accounts GROUP BY account_id;
