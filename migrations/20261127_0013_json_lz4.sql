-- The stored JSON the list routes splice (tx, evm_tx, evm_internal_tx `data`) is compressed with
-- lz4 instead of pglz where the server is built with lz4. A 100-tx page detoasts ~690 KB of JSON:
-- with lz4 PostgreSQL spends ~18 % less on it (as little as on uncompressed values) for 3 % more
-- bytes (bench/column-compression.ts; docs/benchmarks.md, "Column compression"). The values are
-- the same text either way: only how PostgreSQL stores them changes.
--
-- Cost: catalog only. SET COMPRESSION rewrites nothing; it applies to values written from now on.
-- Rows already stored stay pglz (PostgreSQL reads both) until something rewrites them (an UPDATE
-- of the row, VACUUM FULL, a dump and restore). No backfill here: rewriting tx would take the
-- table's size in time and I/O under a lock the API waits on.
-- Locks: ACCESS EXCLUSIVE on each table for the catalog update, held to this migration's commit
-- (milliseconds). API reads queue behind it and it queues behind reads already running;
-- lock_timeout bounds that (past it the migration rolls back and the next start tries again).
--
-- Servers without lz4 (PGlite; PostgreSQL built without it) keep pglz: the block does nothing.
-- A dump of an lz4 database restores on such a server with pg_dump --no-toast-compression.
SET LOCAL lock_timeout = '5s';

DO $$
BEGIN
  IF 'lz4' = ANY ((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression')::text[]) THEN
    ALTER TABLE tx ALTER COLUMN data SET COMPRESSION lz4;
    ALTER TABLE evm_tx ALTER COLUMN data SET COMPRESSION lz4;
    ALTER TABLE evm_internal_tx ALTER COLUMN data SET COMPRESSION lz4;
  END IF;
END $$;
