import type { AbciEvent, TxResult } from '../../node/types.js';
import type { EvmReceipt } from '../../node/evm.js';
import type { Coin } from './tx.js';

export interface DecodedTx {
  /** Upper-case hex sha256 of the raw bytes. */
  hash: string;
  /** REST proto-JSON `{body, auth_info, signatures}` as text, ready to embed. */
  restTxJson: string;
  /** Type URLs without the leading '/', de-duplicated, first-occurrence order. */
  msgTypes: string[];
  /** Type URLs the local registry could not render (REST fallback needed). */
  unknownTypes: string[];
  /** The TxRaw bytes (kept for a tx stored undecoded, docs/api.md §14). */
  bytes: Uint8Array;
  /**
   * Set when neither the registry nor the node's REST could render the tx: its JSON is the local
   * rendering, each unknown message as {"@type","value"} (docs/api.md §14).
   */
  undecoded: boolean;
  /**
   * bech32 of the first signer; for a key of a type no rule here derives, the fee payer or
   * undefined, and the ante handler's `tx.acc_seq` event names it instead (docs/ingest.md §3.4).
   */
  signer: string | undefined;
  /** The first signer's public key is of a type this release cannot derive an address from. */
  signerKeyUnknown: boolean;
  fee: Coin[];
  /** base64 signatures joined with ',' (the REST join key). */
  signaturesKey: string;
}

export interface TxJsonInput {
  hash: string;
  height: number;
  result: TxResult;
  restTxJson: string;
  /** Block time as served (RFC 3339 nano). */
  timestamp: string;
}

/** What ingest needs from the decode layer, per tx; pure and synchronous. */
export interface TxDecoder {
  decode(txBase64: string): DecodedTx;
  /** Accounts of a tx (bech32, distinct, signer included) per docs/ingest.md §6.2. */
  accounts(events: readonly AbciEvent[], signer: string): string[];
  /** The API's Tx JSON object (docs/api.md §5.2) as text. */
  renderTxJson(input: TxJsonInput): string;
  /** A REST tx object (fallback path) rendered exactly as restTxJson is. */
  renderRestTxJson(restTx: unknown): string;
  /** Accounts of an EVM receipt per docs/ingest.md §6.3 (bech32). Throws on a bad address. */
  evmReceiptAccounts(receipt: EvmReceipt): string[];
  sumFees(fees: readonly Coin[][]): Coin[];
}
