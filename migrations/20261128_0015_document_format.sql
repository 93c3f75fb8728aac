-- The format version of each stored document (docs/api.md, "Stored documents and their format
-- versions"): `tx.data`, `evm_tx.data` and `evm_internal_tx.data` hold the exact text the API
-- serves, rendered by the document's module at ingest. When a module's renderer changes, its
-- version rises and the store's re-render job (`rollup-indexer rerender-documents`) brings older
-- rows up to it in batches beside a live API, instead of a migration rewriting text in place.
--
-- version       : the format every stored row of the document is in, once no re-render runs
-- rerender_to   : the version a re-render is bringing rows to (NULL: none started)
-- rerender_after: its checkpoint, the last sequence re-rendered (NULL: none yet); each batch
--                 commits its rows and this checkpoint together, so a stopped job resumes here.
--
-- Starting versions: tx rows are in format 2 (migration 0009 completed their events), EVM txs and
-- internal txs in format 1 (their first).
CREATE TABLE document_format (
  document       text PRIMARY KEY,
  version        integer NOT NULL,
  rerender_to    integer,
  rerender_after bigint
);

INSERT INTO document_format (document, version) VALUES ('tx', 2), ('evm_tx', 1), ('evm_internal_tx', 1);
