import type { SimEvent } from './events.js';
import type { SimAccount } from './keys.js';
import type { EncodedMsg, SimSignMode } from './tx-build.js';
import type { Coin, NftMentionTruth } from '../types.js';

/** What a VM model decides for one global tx index; chain/assemble.ts turns it into bytes and JSON. */
export interface PlannedTx {
  signer: SimAccount;
  sequence: number;
  signMode: SimSignMode;
  msgs: EncodedMsg[];
  memo: string;
  fee: Coin[];
  gasLimit: number;
  gasUsed: number;
  /** Events of each message, without msg_index (added by the assembler). */
  msgEvents: SimEvent[][];
  /** Type URLs of the Msg responses packed into TxMsgData. */
  msgResponseTypes: string[];
  failure?: { code: number; codespace: string; log: string };
  /** Events after the messages, without msg_index (post handler, e.g. minievm gas refunds); success only. */
  postEvents?: SimEvent[];
  /** EVM-wrapped txs: the 65-byte signature and the Ethereum tx hash. */
  presetSignature?: Uint8Array;
  evmHash?: string;
  /** NFTs the tx names without touching them (copied into its truth). */
  nftMentions?: NftMentionTruth[];
}

/** One NFT operation as a VM builds it: a single message, its events and its response type. */
export interface NftTxParts {
  msg: EncodedMsg;
  events: SimEvent[];
  response: string;
  gasBase: number;
  /** IBC relays are signed in DIRECT mode, as relayers do. */
  direct?: boolean;
}

export interface VmModel {
  plan(g: number): PlannedTx;
  /** Ante-handler fee events (between the VM-specific fee transfer and `tx{signature}`). */
  feeEvents(tx: PlannedTx): SimEvent[];
}
