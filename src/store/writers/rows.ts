import type { NftBlockRows } from './nft-rows.js';

/**
 * What ingest hands to the store for one block: plain rows, accounts as normalised bytes.
 * Sequences and dictionary ids are assigned by the writer inside the commit transaction.
 */

export interface BlockRow {
  height: number;
  hash: Uint8Array;
  /** RFC 3339 (PostgreSQL keeps microseconds). */
  timestamp: string;
  blockTimeMs: number;
  proposer: string;
  gasUsed: string;
  gasWanted: string;
  txCount: number;
  /** JSON array text of coins. */
  totalFee: string;
}

export interface TxRow {
  hash: Uint8Array;
  height: number;
  signer: Uint8Array;
  /** Distinct accounts, signer included. */
  accounts: Uint8Array[];
  /** Distinct message type URLs without the leading '/'. */
  msgTypes: string[];
  /** The API's Tx JSON, ready to send. */
  data: string;
  /**
   * `data` packed as `tx.data_packed` stores it (docs/ingest.md §9.2), made by the prepare worker
   * that rendered it: deflate with the preset dictionary is ~0.2 ms a tx, kept off the thread
   * that commits and serves the API. Absent: the writer packs `data` itself.
   */
  packed?: Uint8Array;
  /** Raw TxRaw bytes of a tx stored undecoded (docs/api.md §14); absent for a decoded tx. */
  undecodedRaw?: Uint8Array;
}

export interface EvmTxRow {
  hash: Uint8Array;
  height: number;
  signer: Uint8Array;
  accounts: Uint8Array[];
  /** The API's EvmTx JSON (14 receipt keys), ready to send. */
  data: string;
}

export interface BlockRows {
  block: BlockRow;
  txs: TxRow[];
  evmTxs: EvmTxRow[];
  /** A proposer moniker learnt while preparing this block. */
  validator?: { operatorAddress: string; moniker: string };
  /** NFT changes of this block (absent when NFT indexing is off). */
  nft?: NftBlockRows;
}

export interface Checkpoint {
  height: number;
  blockHash: Uint8Array | null;
  txSequence: number;
  evmSequence: number;
  /** Block time of the checkpoint height, to compute the next block's block_time. */
  blockTimestamp: string | null;
}
