/**
 * What the NFT collectors hand to the store for one block (migrations/20261124_0003_nft.sql).
 * Addresses are raw bytes (20-byte EVM contracts, 32-byte Move objects and Wasm contracts),
 * accounts are normalised account bytes; dictionary ids and tx sequences are resolved by the writer
 * inside the block's commit transaction.
 */

/** A collection as first seen (insert-if-absent: the first sighting wins). */
export interface NftCollectionRow {
  addr: Uint8Array;
  height: number;
  /** RFC 3339 block time of `height`. */
  timestamp: string;
  name: string;
  /** Creator account bytes, or null when unknown. */
  creator: Uint8Array | null;
  /**
   * EVM (docs/ingest.md §7.2): the creator is the signer of the earliest stored tx touching the contract, and the
   * height/timestamp are that tx's; the writer resolves it (falls back to the fields above).
   */
  creatorFromFirstTx?: boolean;
}

/**
 * Which token a change is about: its (collection, token id), or — for Move transfers, URI
 * mutations and burns, whose events name only the object — the NFT object address. An object that
 * is not a live NFT (TransferEvent fires for every object) is ignored by the writer.
 */
export type NftRef = { collection: Uint8Array; tokenId: string } | { object: Uint8Array };

interface ChangeBase {
  /** Index of the tx in its block (the edge to tx.sequence), or null for block-level events. */
  txIndex: number | null;
}

/** One change to one token, in chain order. */
export type NftChange = ChangeBase &
  (
    | {
        kind: 'mint';
        ref: { collection: Uint8Array; tokenId: string };
        /** Move only: the NFT object address. */
        objectAddr: Uint8Array | null;
        owner: Uint8Array;
        uri: string;
      }
    | { kind: 'transfer'; ref: NftRef; owner: Uint8Array }
    | { kind: 'uri'; ref: NftRef; uri: string }
    | { kind: 'burn'; ref: NftRef }
  );

export interface NftBlockRows {
  collections: NftCollectionRow[];
  /** Every change of the block in event order (a later change to the same token wins). */
  changes: NftChange[];
  /** IBC nft-transfer receipts (docs/ingest.md §7.4): origin_name = l1Name on existing collections named l2Name. */
  originNames: Array<{ l2Name: string; l1Name: string }>;
}
