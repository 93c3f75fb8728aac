-- Account x message-type edges of Cosmos txs: `/txs/by_account/{account}?msgs=…` becomes one bounded
-- index scan per message type, however many txs the account has that do not match (before, it
-- walked the account's edges until a page filled: work that grew with the account).
-- Kept by ingest in the same transaction as tx_accounts and tx_msg_types.
CREATE TABLE tx_account_msg_types (
  account_id  bigint NOT NULL,
  msg_type_id integer NOT NULL,
  sequence    bigint NOT NULL,
  signer      boolean NOT NULL,
  PRIMARY KEY (account_id, msg_type_id, sequence)
);
CREATE INDEX tx_account_msg_types_signer_idx ON tx_account_msg_types (account_id, msg_type_id, sequence) WHERE signer;

INSERT INTO tx_account_msg_types (account_id, msg_type_id, sequence, signer)
  SELECT a.account_id, m.msg_type_id, a.sequence, a.signer
    FROM tx_accounts a JOIN tx_msg_types m ON m.sequence = a.sequence;
