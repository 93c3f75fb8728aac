/**
 * What the NFT collectors hand to the store for one block (migrations/20261124_0003_nft.sql).
 * Addresses are raw bytes (20-byte EVM contracts, 32-byte Move objects and Wasm contracts),
 * accounts are normalised account bytes; dictionary ids and tx sequences are resolved by the writer
 * inside the block's commit transaction. Changes are already netted within the block and listed
 * in the order they must be applied.
 */

/** A collection seen for the first time (insert-if-absent: the first sighting wins). */
export interface NftCollectionRow {
  addr: Uint8Array;
  height: number;
  /** RFC 3339 block time of `height`. */
  timestamp: string;
  name: string;
  /** Creator account bytes, or null when the chain does not say. */
  creator: Uint8Array | null;
}

/** Identifies one token: collection address bytes and the token id text. */
export interface NftKey {
  collection: Uint8Array;
  tokenId: string;
}

/** One change to one token, in chain order. */
export type NftChange =
  | {
      kind: 'mint';
      key: NftKey;
      /** Move only: the NFT object address. */
      objectAddr: Uint8Array | null;
      owner: Uint8Array;
      uri: string;
    }
  | { kind: 'transfer'; key: NftKey; owner: Uint8Array }
  | { kind: 'uri'; key: NftKey; uri: string }
  | { kind: 'burn'; key: NftKey };

export interface NftBlockRows {
  height: number;
  timestamp: string;
  collections: NftCollectionRow[];
  /** Every change of the block in event order (a later change to the same token wins). */
  changes: NftChange[];
  /** Token ↔ tx edges: the hash (raw bytes) of each tx that touched each token. */
  txEdges: Array<{ key: NftKey; txHash: Uint8Array }>;
  /** IBC nft-transfer receipts (§7.4): set origin_name = l1Name on collections named l2Name. */
  originNames: Array<{ l2Name: string; l1Name: string }>;
}
