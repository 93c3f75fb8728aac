-- Narrower Cosmos tx edge rows (issue 34, bytes per tx; docs/ingest.md §9). The two edge tables
-- hold ~8.5 rows per tx each and were a third of the bytes per tx, most of it row and index-entry
-- overhead around three integers. Nothing a reader sees changes (same columns, same values, same
-- indexes under the same names); only how the rows are laid out:
--
--   tx_account_msg_types.account_id  bigint -> integer. The primary key's entry (account_id,
--       msg_type_id, sequence) was 8 + 4 + 4 (alignment) + 8 bytes; it becomes 4 + 4 + 8 = 24,
--       and an entry of at most two 8-byte words is one PostgreSQL's B-tree splits "after the new
--       tuple" when an (account, type) run grows, so leaf pages stay fuller. Row 56 -> 48 bytes.
--   tx_accounts  recreated as (sequence bigint, account_id integer, signer boolean): the 4-byte id
--       after the 8-byte sequence needs no padding, row 48 -> 40 bytes. Its indexes are rebuilt
--       under their old names with their old definitions.
--
-- Measured by `npm run bench:bytes` (3,000 Move blocks x 3 txs, every stage on): these two tables
-- 1,910 -> 1,573 B/tx. account_dict ids are bigint; these columns hold them as integer, so a chain
-- can have 2,147,483,647 account ids (docs/ingest.md §9.1: the dictionary draws some ids it does not
-- keep, about a third more than the accounts). Past that, ingest stops on the failed insert ("integer out of
-- range"); it never stores a wrong id. evm_tx_accounts and the internal-tx edges keep bigint.
--
-- Cost: both tables are rewritten (ALTER TYPE rewrites tx_account_msg_types and rebuilds its
-- indexes; tx_accounts is copied in sequence order, as ingest appends it, so its BRIN index stays
-- tight). Time is linear in the edges: 29 s for `migrate` at 200k txs (1.7M edges in each table)
-- on a loaded 2-core host. Locks: ACCESS EXCLUSIVE on both tables until this
-- migration commits, so API reads of account routes wait for the rewrite; ingest runs migrations
-- at its own start, before it writes. lock_timeout bounds only the wait for the locks; past it the
-- migration rolls back and the next start tries again. A database whose edges already hold an
-- account id beyond integer fails here and rolls back whole (the old tables stay).
SET LOCAL lock_timeout = '5s';
LOCK TABLE tx_accounts, tx_account_msg_types IN ACCESS EXCLUSIVE MODE;

ALTER TABLE tx_account_msg_types ALTER COLUMN account_id TYPE integer;

CREATE TABLE tx_accounts_0018 (
  sequence   bigint NOT NULL,
  account_id integer NOT NULL,
  signer     boolean NOT NULL
);
-- Privileges granted on the old table (the API's read-only role) carry over to the new one.
DO $$
DECLARE
  g record;
BEGIN
  FOR g IN SELECT a.privilege_type AS privilege,
                  CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END AS grantee
             FROM pg_class c, aclexplode(c.relacl) a
            WHERE c.oid = 'tx_accounts'::regclass AND a.grantee <> c.relowner
  LOOP
    EXECUTE format('GRANT %s ON tx_accounts_0018 TO %s', g.privilege, g.grantee);
  END LOOP;
END $$;

INSERT INTO tx_accounts_0018 (sequence, account_id, signer)
  SELECT sequence, account_id, signer FROM tx_accounts ORDER BY sequence, account_id;
DROP TABLE tx_accounts;
ALTER TABLE tx_accounts_0018 RENAME TO tx_accounts;
ALTER TABLE tx_accounts ADD PRIMARY KEY (account_id, sequence);
CREATE INDEX tx_accounts_signer_idx ON tx_accounts (account_id, sequence) WHERE signer;
CREATE INDEX tx_accounts_sequence_brin ON tx_accounts USING brin (sequence);
