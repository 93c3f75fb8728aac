-- NFT receipts (issue 22, VIP scores `nft_mints` / `nft_received`): who received which token in
-- which tx. tx_nfts says which txs touched a token, not who got it; this says that, written by
-- ingest in the same transaction as the tokens (src/store/writers/nft-receipts.ts).
--
-- A mint's recipient is the token's owner at the end of the minting tx (Move mints to the
-- collection creator and moves the object in the same tx); transfers inside the minting tx are
-- part of the mint. Any other transfer is a receipt of its new owner (one row per tx, token and
-- recipient). Block-level events (no tx) have no sequence.
--
-- Both tables are new and empty: nothing existing is rewritten or locked.
CREATE TABLE nft_receipt (
  height   bigint NOT NULL,
  sequence bigint,
  nft_id   bigint NOT NULL,
  to_id    bigint NOT NULL,
  minted   boolean NOT NULL
);
COMMENT ON TABLE nft_receipt IS 'NFT mints and transfers by recipient (account_dict id), per tx; written with the NFT rows since this migration.';
CREATE INDEX nft_receipt_height_idx ON nft_receipt (height);

-- Heights indexed before this migration have no receipts (they are not derivable from stored
-- rows): scores over them are refused rather than silently zero. A fresh database covers all.
CREATE TABLE nft_receipt_coverage (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  from_height bigint NOT NULL
);
INSERT INTO nft_receipt_coverage (from_height)
  SELECT coalesce((SELECT height FROM checkpoint WHERE stream = 'blocks'), 0) + 1;
