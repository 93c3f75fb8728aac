import type { SimEvent } from './events.js';
import type { SimAccount } from './keys.js';
import type { EncodedMsg, SimSignMode } from './tx-build.js';
import type { Coin, HolderTruth, InternalTxTruth, SimHttpRequest } from '../types.js';
import type { NftNaming } from '../truth/nft.js';
import type { RestAnswer } from '../surfaces/rest/blocks.js';
import type { Outcome } from '../surfaces/jsonrpc.js';
import type { GeneratedBlock } from './blocks.js';

/** What a VM model decides for one global tx index; chain.ts turns it into bytes and JSON. */
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

/** Everything one VM contributes: its tx model, NFT naming and VM-specific routes. */
export interface VmSetup {
  model: VmModel;
  naming: NftNaming;
  /** VM-specific REST state routes (answer undefined to pass). */
  rest?(req: SimHttpRequest): RestAnswer | undefined;
  /** EVM JSON-RPC (EVM only). */
  jsonRpc?(method: string, params: unknown): Outcome | undefined;
  holders?(denom: string, atHeight: number): HolderTruth[];
  /** Exact bank balance from the VM's ledger. */
  balanceOf?(address: string, denom: string, height: number): string | undefined;
  /** Bank denoms the address holds a non-zero balance of. */
  denomsOf?(address: string, height: number): string[];
  /** Accounts (0x hex) that exist at a height besides the keyring: those funds reached. */
  accountsAt?(height: number): string[];
  /** Called for every generated block (e.g. to index Ethereum hashes). */
  onBlock?(block: GeneratedBlock): void;
  internalTxs?(evmTxHash: string): InternalTxTruth[];
}
