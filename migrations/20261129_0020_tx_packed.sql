-- Cosmos tx texts packed by the application (docs/ingest.md §9.2): `data_packed` holds a dictionary
-- version byte, then the text deflated with that preset dictionary (src/wire/tx-packing.ts). A
-- packed row is ~0.6–2 KB where its text was 7–25 KB (2.2 KB and up as lz4 in TOAST), so it stays
-- in the table's pages. Every reader unpacks in the application; the text served is unchanged.
--
-- A row holds its text in exactly one of `data` (rows written before this migration) or
-- `data_packed` (rows ingest writes from now on). The existing rows are converted by the store's
-- re-render job (`rollup-indexer rerender-documents`: tx format 2 -> 3, docs/api.md "Stored
-- documents and their format versions"), in batches beside the live API and indexer, not here:
-- deflate is not a PostgreSQL function, and rewriting tx in one statement would take the table's
-- size in time under a lock the API waits on. Readers serve both kinds of row meanwhile.
--
-- Cost: catalog only. DROP NOT NULL, ADD COLUMN without a default and SET STORAGE rewrite nothing;
-- the CHECK is NOT VALID (it holds for every existing row: each has `data` and no `data_packed`),
-- so nothing scans the table; it applies to every row written or updated from now on.
-- STORAGE EXTERNAL: a packed text is already compressed; a rare one past the TOAST threshold
-- (~2 KB) goes out of line as is instead of being compressed again for nothing.
-- Locks: ACCESS EXCLUSIVE on tx for the catalog update, held to this migration's commit
-- (milliseconds); lock_timeout bounds the wait behind running reads (past it the migration rolls
-- back and the next start tries again).
SET LOCAL lock_timeout = '5s';

ALTER TABLE tx ALTER COLUMN data DROP NOT NULL;
ALTER TABLE tx ADD COLUMN data_packed bytea;
ALTER TABLE tx ALTER COLUMN data_packed SET STORAGE EXTERNAL;
ALTER TABLE tx ADD CONSTRAINT tx_text_once CHECK ((data IS NULL) <> (data_packed IS NULL)) NOT VALID;

-- A database holding no tx yet (a new install) is already in format 3: every row will be written
-- packed, so `rerender-documents` has nothing to walk. Otherwise the tx rows stay in format 2 until
-- the job has packed them.
UPDATE document_format SET version = 3
 WHERE document = 'tx' AND version = 2 AND rerender_to IS NULL AND NOT EXISTS (SELECT 1 FROM tx);
