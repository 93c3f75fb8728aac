-- Txs stored undecoded (docs/api.md §14): a tx holding a message type (or a wire field) this
-- release's protobuf registry does not know, whose block the node's REST could not render either
-- ("unable to resolve type URL …: tx parse error"). Its `tx` row is committed with its block like
-- any other (hash, signer, events, message type URLs read from the bytes; each unknown message
-- served as {"@type","value"}); this table marks it and keeps its raw bytes, so that a later
-- release whose registry knows the type re-renders `tx.data` in place (`rerender-documents`) and
-- deletes the row here in the same transaction.
--
-- sequence: the tx's `tx.sequence`
-- raw     : the TxRaw bytes as the block carried them
CREATE TABLE undecoded_tx (
  sequence bigint PRIMARY KEY,
  raw      bytea NOT NULL
);

-- The re-render of undecoded txs moves this row with every batch it commits (rerender_after: the
-- last sequence it went through; version: runs finished). document_format is part of the store
-- identity a running API checks before serving a cached row, so the row cache drops what it holds
-- once a batch has rewritten rows (docs/api.md §13). ON CONFLICT: a database filled with a newer
-- database's rows (a restore; the upgrade test's stepwise copy) may hold the row already.
INSERT INTO document_format (document, version) VALUES ('tx_undecoded', 0) ON CONFLICT (document) DO NOTHING;
