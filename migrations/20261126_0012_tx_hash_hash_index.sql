-- Tx hashes are looked up by equality only (`/txs/{hash}`, `/evm-txs/{hash}`, the internal-tx
-- route's "is this EVM tx traced"): no query orders or ranges over them. The B-tree held each
-- 32-byte hash in full, in an order nothing reads, and at ~67 % leaf density (hashes are random,
-- so every insert lands mid-index and splits pages in half). A hash index keeps a 4-byte hash code
-- per row and finds the bucket directly: measured by bench/scale.ts (docs/benchmarks.md, scale
-- section), about half the bytes per tx, same lookup plan (index scan, then the one row).
-- evm_internal_tx_hash_idx stays a B-tree: its route pages through one hash's frames in sequence
-- order, which a hash index cannot give.
--
-- Locks (a migration runs in one transaction of its own, so no CONCURRENTLY here):
--   CREATE INDEX ... USING hash   SHARE on tx / evm_tx for the build: API reads (ACCESS SHARE) go
--                                 on; ingest writes wait. Ingest runs migrations at its own start,
--                                 before it writes, so nothing of ours waits.
--   DROP INDEX                    ACCESS EXCLUSIVE on the table, taken only after both builds
--                                 and held to this migration's commit right after the drops
--                                 (milliseconds, no rewrite);
--                                 API reads queue for that moment and for any read already
--                                 running when it asks. lock_timeout bounds that queueing: past
--                                 it the whole migration rolls back (the old index stays) and
--                                 the next start tries again.
-- Nothing is rewritten: tx and evm_tx keep their rows and files.
SET LOCAL lock_timeout = '5s';

CREATE INDEX tx_hash_hidx ON tx USING hash (hash);
CREATE INDEX evm_tx_hash_hidx ON evm_tx USING hash (hash);

-- Both builds first: a drop's exclusive lock must not be held through the other table's build.
DROP INDEX tx_hash_idx;
DROP INDEX evm_tx_hash_idx;
