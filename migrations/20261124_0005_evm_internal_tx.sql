-- EVM internal transactions (spec/indexer.md §8.2): one row per call frame of a traced EVM tx,
-- numbered by a gapless stream sequence in depth-first pre-order across the chain, written by the
-- internal_tx stage together with its checkpoint row (stream 'internal_tx', tx_sequence = last
-- sequence). The rendered JSON is stored as the API sends it.
CREATE TABLE evm_internal_tx (
  sequence bigint PRIMARY KEY,
  height   bigint NOT NULL,
  hash     bytea NOT NULL,
  data     text NOT NULL
);
CREATE INDEX evm_internal_tx_height_idx ON evm_internal_tx (height, sequence);
CREATE INDEX evm_internal_tx_hash_idx ON evm_internal_tx (hash, sequence);

-- Accounts per frame (from and to); `signer` marks the caller (`from`).
CREATE TABLE evm_internal_tx_accounts (
  account_id bigint NOT NULL,
  sequence   bigint NOT NULL,
  signer     boolean NOT NULL,
  PRIMARY KEY (account_id, sequence)
);
CREATE INDEX evm_internal_tx_accounts_signer_idx ON evm_internal_tx_accounts (account_id, sequence) WHERE signer;

-- Per-account frame counts kept in the same transaction, so an account's total is one row.
CREATE TABLE evm_internal_tx_account_counts (
  account_id bigint PRIMARY KEY,
  txs        bigint NOT NULL,
  signed     bigint NOT NULL
);
