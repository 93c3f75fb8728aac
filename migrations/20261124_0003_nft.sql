-- NFT collections and tokens on every VM (spec indexer.md §7, api.md §4.6).
--
-- Forms used throughout:
--   * addresses (collections, Move NFT objects) are raw bytes: 20 bytes for an EVM contract,
--     32 bytes for a Move collection object or a Wasm contract. The API renders them as '0x' +
--     lower-case hex; an address given as bech32 or hex is normalised to these bytes first.
--   * owners and creators are account_dict ids (account_dict.account holds the normalised bytes;
--     the API renders them bech32 with the chain prefix).
--   * token ids are text exactly as the chain gives them (EVM: the uint256 in decimal), compared
--     byte-wise (COLLATE "C") so that the lexicographic order the API pages by is the same on every
--     PostgreSQL build and in PGlite.
--   * timestamps are the block time (timestamptz, microseconds).
-- Burned tokens are deleted from nft; their nft_dict id and tx_nfts edges stay, so a token burned
-- and minted again keeps one identity and one history.

-- One row per collection, written when it is first seen; never re-created.
CREATE TABLE nft_collection (
  addr             bytea PRIMARY KEY,
  height           bigint NOT NULL,
  "timestamp"      timestamptz NOT NULL,
  name             text NOT NULL,
  origin_name      text NOT NULL DEFAULT '',
  creator_id       bigint,
  nft_count        bigint NOT NULL DEFAULT 0 CHECK (nft_count >= 0),
  name_key         text NOT NULL,
  origin_name_key  text NOT NULL DEFAULT ''
);
COMMENT ON TABLE nft_collection IS 'NFT collections, one row per collection address, inserted at first sighting (first-seen height, name and creator are never updated).';
COMMENT ON COLUMN nft_collection.addr IS 'Collection address as raw bytes: 20 (EVM contract) or 32 (Move collection object, Wasm contract). API: 0x + lower-case hex.';
COMMENT ON COLUMN nft_collection.height IS 'Block height of creation (Move: CreateCollectionEvent; EVM: height of the first tx touching the contract; Wasm: first block with a mint-like event seen by this indexer).';
COMMENT ON COLUMN nft_collection."timestamp" IS 'Block time of that height.';
COMMENT ON COLUMN nft_collection.name IS 'Collection name as the chain gives it (Move event name, cw721 contract_info.name, ERC721 name()), NUL characters removed.';
COMMENT ON COLUMN nft_collection.origin_name IS 'L1 class name when the collection arrived over IBC nft-transfer (spec §7.4), else the empty string.';
COMMENT ON COLUMN nft_collection.creator_id IS 'account_dict id of the creator (Move: event creator; Wasm: contract instantiator; EVM: signer of the first tx touching the contract); NULL when unknown (API renders "").';
COMMENT ON COLUMN nft_collection.nft_count IS 'Exact number of live (not burned) tokens, maintained by ingest in the same transaction as the tokens; 0 after the last burn.';
COMMENT ON COLUMN nft_collection.name_key IS 'name normalised for /collections/by_name: runs of characters outside Unicode letters, marks and digits removed, then lower-cased (src/shared/nft-name.ts).';
COMMENT ON COLUMN nft_collection.origin_name_key IS 'origin_name normalised the same way as name_key.';
-- /collections and the by_name walk: height order with the address as a stable tie-break.
CREATE INDEX nft_collection_height_idx ON nft_collection (height, addr);
-- nft-pair (§7.4) sets origin_name WHERE name = the IBC class path or hash.
CREATE INDEX nft_collection_name_idx ON nft_collection (name);

-- NFT interning (spec §5.3): one id per (collection, token id), kept across burns and re-mints.
CREATE TABLE nft_dict (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_addr bytea NOT NULL,
  token_id        text COLLATE "C" NOT NULL,
  UNIQUE (collection_addr, token_id)
);
COMMENT ON TABLE nft_dict IS 'NFT dictionary: a stable id per (collection address bytes, token id text); rows are never deleted.';
COMMENT ON COLUMN nft_dict.collection_addr IS 'Collection address bytes, as nft_collection.addr.';
COMMENT ON COLUMN nft_dict.token_id IS 'Token id text as on chain (EVM: decimal uint256).';

-- Live tokens only: a burn deletes the row.
CREATE TABLE nft (
  nft_id          bigint PRIMARY KEY REFERENCES nft_dict (id),
  collection_addr bytea NOT NULL,
  token_id        text COLLATE "C" NOT NULL,
  object_addr     bytea,
  owner_id        bigint NOT NULL,
  uri             text NOT NULL DEFAULT '',
  height          bigint NOT NULL,
  "timestamp"     timestamptz NOT NULL
);
COMMENT ON TABLE nft IS 'Live NFTs, one row per token that is minted and not burned; a burn deletes the row (nft_dict and tx_nfts keep its history).';
COMMENT ON COLUMN nft.nft_id IS 'nft_dict id of (collection_addr, token_id).';
COMMENT ON COLUMN nft.collection_addr IS 'Collection address bytes, as nft_collection.addr (copied here so every token route is one index scan).';
COMMENT ON COLUMN nft.token_id IS 'Token id text as on chain; byte-wise (C) collation, the order the API pages by.';
COMMENT ON COLUMN nft.object_addr IS 'Move only: the NFT object address, 32 raw bytes (API: 0x + 64 lower-case hex); NULL on EVM and Wasm (API renders "").';
COMMENT ON COLUMN nft.owner_id IS 'account_dict id of the current owner (Move: the collection creator until the first TransferEvent, as the reference does).';
COMMENT ON COLUMN nft.uri IS 'Token URI as on chain (Move Nft resource / MutationEvent, cw721 token_uri, ERC721 tokenURI()), "" when none; NUL characters removed.';
COMMENT ON COLUMN nft.height IS 'Height of the last mint, transfer or URI change of this token.';
COMMENT ON COLUMN nft."timestamp" IS 'Block time of nft.height.';
CREATE UNIQUE INDEX nft_collection_token_idx ON nft (collection_addr, token_id);
CREATE INDEX nft_collection_height_token_idx ON nft (collection_addr, height, token_id);
-- /tokens/by_account ordered by token_id or height, with and without a collection_addr filter;
-- the trailing columns make the order total so keyset pages never skip or repeat.
CREATE INDEX nft_owner_token_idx ON nft (owner_id, token_id, height, collection_addr);
CREATE INDEX nft_owner_height_idx ON nft (owner_id, height, token_id, collection_addr);
CREATE INDEX nft_owner_collection_token_idx ON nft (owner_id, collection_addr, token_id);
CREATE INDEX nft_owner_collection_height_idx ON nft (owner_id, collection_addr, height, token_id);
-- Move TransferEvent / MutationEvent / BurnEvent name the object address.
CREATE UNIQUE INDEX nft_object_addr_idx ON nft (object_addr) WHERE object_addr IS NOT NULL;

-- Per (owner, collection) live-token counts, so /collections/by_account never scans an owner's
-- tokens (an owner of 100,000 NFTs in 50 collections reads 50 rows).
CREATE TABLE nft_holding (
  owner_id        bigint NOT NULL,
  collection_addr bytea NOT NULL,
  nft_count       bigint NOT NULL CHECK (nft_count >= 0),
  PRIMARY KEY (owner_id, collection_addr)
);
COMMENT ON TABLE nft_holding IS 'How many live NFTs each account owns per collection; rows whose count reaches 0 are deleted in the same transaction. Maintained by ingest with nft in the same transaction.';
COMMENT ON COLUMN nft_holding.owner_id IS 'account_dict id of the owner.';
COMMENT ON COLUMN nft_holding.collection_addr IS 'Collection address bytes, as nft_collection.addr.';
COMMENT ON COLUMN nft_holding.nft_count IS 'Number of rows in nft with this owner_id and collection_addr.';

-- NFT <-> Cosmos tx edges on every VM (Move included): a token's history is the keyset scan
-- (nft_id, sequence) joined to tx.
CREATE TABLE tx_nfts (
  nft_id   bigint NOT NULL,
  sequence bigint NOT NULL,
  PRIMARY KEY (nft_id, sequence)
);
COMMENT ON TABLE tx_nfts IS 'Each Cosmos tx (tx.sequence) that minted, transferred, changed the URI of or burned a token (nft_dict.id); one row per pair. Block-level events (no tx) write no edge.';
COMMENT ON COLUMN tx_nfts.nft_id IS 'nft_dict id.';
COMMENT ON COLUMN tx_nfts.sequence IS 'tx.sequence of the touching tx.';
