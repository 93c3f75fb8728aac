/**
 * The simulator's public contract: options, the in-process handle, and the ground truth that
 * ingest and API tests compare their results with. Shapes here are relied on by other parts'
 * tests; change them only together with those tests.
 */

import type { VmType } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';

/** Defined in shared (vip and ingest use it too); part of the simulator's contract as well. */
export type { VmType };

export interface SimulatorOptions {
  vm: VmType;
  chainId?: string;
  seed?: number;
  host?: string;
  /** 0 picks a free port. */
  rpcPort?: number;
  restPort?: number;
  jsonRpcPort?: number;
  /** Fixed head height (default when not live). */
  head?: number;
  /** Advance the head with wall time. */
  live?: boolean;
  /**
   * A node that serves the chain from this height on (a state-synced node's snapshot height, a
   * pruned node's lowest): lower heights are answered "height X is not available, lowest height is Y".
   */
  lowestHeight?: number;
  /** A pruned node that keeps only the last N blocks: its lowest height moves with the head. */
  keepBlocks?: number;
  /** A node that lags: it serves the head this many blocks behind the chain's. */
  lagBlocks?: number;
  blockTimeMs?: number;
  /** e.g. "3", "0-12", "1000". */
  txsPerBlock?: string;
  /** e.g. "5xx=0.05,429=0.02,timeout=0.01,latency=20,reset=0.01,lag=2,shortpage=0.1,pruned=100". */
  faults?: string;
  /** Directory of recorded REST tx_response JSON files to build the chain from. */
  replay?: string;
  /**
   * Size of the user keyring (default 64). Fewer accounts make busy ones: with 8, each account
   * is in hundreds of thousands of a million txs (the read-API benchmark's busy account).
   */
  accounts?: number;
  /**
   * Seed of the user keyring (default: `seed`). Chains of different seeds given one keyring seed
   * share their users, as one person's account is the same 20 bytes on every rollup.
   */
  keyringSeed?: number;
  /**
   * Share of txs that are NFT operations, a multiple of 0.05 in (0, 1] (default 0.2: one tx in
   * five, which every existing chain's answers depend on).
   */
  nftShare?: number;
  /** Skip real signing for large benchmarks (signatures are unique but do not verify). */
  fastSignatures?: boolean;
  /**
   * A chain upgrade bringing a message type no indexer release knows (docs/node-data.md §4.3):
   * from `height` on, one tx in `every` (default 3) also carries `/initia.upgrade.v2.MsgNewThing`,
   * and REST answers "unable to resolve type URL" for those txs and their blocks.
   */
  upgrade?: { height: number; every?: number };
  /**
   * Extra request handlers (e.g. the VIP chain model: broadcast, simulate, accounts, contract
   * queries, L1 module store). Tried in order after the simulator's own routes miss.
   */
  extensions?: SimExtension[];
  /** Where request failures are logged (default: a warn-level JSON logger). */
  logger?: Logger;
}

export interface SimHttpRequest {
  method: string;
  /** Path without the query string, e.g. `/cosmos/tx/v1beta1/txs`. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  /** Parsed JSON body (undefined when none). */
  body: unknown;
}

export interface SimHttpResponse {
  status: number;
  /** Serialised as JSON unless it is a string. */
  body: unknown;
  headers?: Record<string, string>;
}

export type SimRpcResult = { result: unknown } | { error: { code: number; message: string; data?: string } };

export interface SimExtension {
  /** Cosmos REST; answer undefined to pass. */
  rest?(req: SimHttpRequest): SimHttpResponse | undefined | Promise<SimHttpResponse | undefined>;
  /** CometBFT JSON-RPC method (URI and POST forms); answer undefined to pass. */
  rpc?(
    method: string,
    params: Record<string, unknown>,
  ): SimRpcResult | undefined | Promise<SimRpcResult | undefined>;
  /** EVM JSON-RPC method; answer undefined to pass. */
  jsonRpc?(method: string, params: unknown[]): SimRpcResult | undefined | Promise<SimRpcResult | undefined>;
}

export interface SimulatorUrls {
  rpc: string;
  rest: string;
  /** Only on --vm evm. */
  jsonRpc?: string;
}

/** One tx as ingest must see it. Accounts are bech32 (prefix `init`), normalised per docs/ingest.md §6.1. */
export interface TxTruth {
  /** Upper-case hex sha256 of the raw tx bytes. */
  hash: string;
  height: number;
  /** Position in the block. */
  index: number;
  /** bech32 of the first signer. */
  signer: string;
  /** Distinct accounts of the tx (signer included), sorted. */
  accounts: string[];
  /** Distinct message type URLs without the leading '/', in first-occurrence order. */
  msgTypes: string[];
  success: boolean;
  code: number;
  gasWanted: string;
  gasUsed: string;
  /** Fee coins as in auth_info.fee.amount. */
  fee: Coin[];
  /** EVM rollups: the Ethereum tx hash (0x, lower-case) when the tx carries one. */
  evmHash?: string;
  /**
   * Move: the NFTs the tx names without minting, moving, changing or burning them (marketplace
   * offers); each object address is among `accounts`. Absent on every other tx.
   */
  nftMentions?: NftMentionTruth[];
  /**
   * What each message calls, in message order (generated txs; absent on replayed ones). Lets a
   * test filter txs by Move function, Wasm contract or EVM target without decoding the tx bytes.
   */
  calls?: MsgCallTruth[];
}

/** One message of a tx and its call target, when it has one. */
export interface MsgCallTruth {
  /** Type URL without the leading '/'. */
  type: string;
  /** Move MsgExecute: module address as the message gives it (e.g. "0x1"), module and function. */
  move?: { moduleAddress: string; moduleName: string; functionName: string };
  /** Wasm MsgExecuteContract: the contract, bech32. */
  wasmContract?: string;
  /** EVM MsgCall: the contract (0x, as the message gives it) and the call input (0x hex). */
  evmCall?: { contract: string; input: string };
}

/**
 * An NFT arriving at an account in a tx: a mint (the recipient the mint delivers to; an IBC
 * receipt mints into the IBC collection) or a transfer between two holders. Burns and URI
 * changes are not moves.
 */
export interface NftMoveTruth {
  height: number;
  /** Position of the tx in its block. */
  txIndex: number;
  kind: 'mint' | 'transfer';
  /** Same form as NftTokenTruth.collectionAddr. */
  collectionAddr: string;
  tokenId: string;
  /** bech32 of the previous holder (transfers only). */
  from?: string;
  /** bech32 of the new holder (a keyring account, or the escrow contract a send delivers to). */
  to: string;
}

/** An NFT a tx names (TxTruth.nftMentions). */
export interface NftMentionTruth {
  /** Same form as NftTokenTruth.collectionAddr. */
  collectionAddr: string;
  tokenId: string;
  /** The NFT object address, 0x + 64 lower-case hex. */
  objectAddr: string;
}

export interface Coin {
  denom: string;
  amount: string;
}

export interface BlockTruth {
  height: number;
  /** Upper-case hex block hash. */
  hash: string;
  /** RFC 3339 with nanoseconds, trailing zeros trimmed, 'Z'. */
  time: string;
  /** Upper-case hex, 20 bytes. */
  proposerAddress: string;
  gasUsed: string;
  gasWanted: string;
  txs: TxTruth[];
}

export interface NftTokenTruth {
  /** 0x + lower-case hex of the collection's account bytes: 32 bytes (Move object, Wasm contract) or 20 (EVM). */
  collectionAddr: string;
  tokenId: string;
  owner: string;
  uri: string;
}

export interface NftCollectionTruth {
  /** Same form as NftTokenTruth.collectionAddr. */
  addr: string;
  name: string;
  creator: string;
  originName: string;
  nftCount: number;
}

export interface HolderTruth {
  account: string;
  amount: string;
}

export interface InternalTxTruth {
  /** 0x hash of the EVM tx. */
  txHash: string;
  index: number;
  parentIndex: number;
  type: string;
  from: string;
  to: string;
  value: string;
  input: string;
  output: string;
  gas: string;
  gasUsed: string;
  /** The tracer's error of a frame that failed (absent when it succeeded). */
  error?: string;
}

export interface SimulatorTruth {
  block(height: number): BlockTruth;
  /** The chain's bank denoms, its fee denom first. */
  denoms(): string[];
  nftCollections(atHeight: number): NftCollectionTruth[];
  nftTokens(atHeight: number): NftTokenTruth[];
  /** The NFT mints and transfers of the txs at one height, in tx order (generated chains only). */
  nftMoves(height: number): NftMoveTruth[];
  /** EVM: holder balances of a denom at a height, largest first. */
  holders(denom: string, atHeight: number): HolderTruth[];
  /**
   * EVM: every call frame of one EVM tx, depth-first pre-order as the indexer numbers them (the
   * top frame is index 0 with parentIndex -1 and output "0x").
   */
  internalTxs(evmTxHash: string): InternalTxTruth[];
}

export interface Simulator {
  readonly options: Readonly<Required<Pick<SimulatorOptions, 'vm' | 'chainId' | 'seed'>>>;
  /** Current head height (advances when live). */
  head(): number;
  truth: SimulatorTruth;
  /** The faults served so far (`faults` option): lets a test prove its profile's faults hit. */
  faultLog(): FaultLog;
  /**
   * A node outage: from now on every request of every surface is answered by this fault (reset:
   * connection refused-like, timeout: never answered, 5xx, 429), until called without a kind.
   */
  outage(kind: keyof FaultCounts | undefined): void;
  /** A chain halt: the node serves no block above `height` until called without one. */
  halt(height: number | undefined): void;
  /** Start the HTTP servers; resolves with their base URLs (no trailing slash). */
  listen(): Promise<SimulatorUrls>;
  /**
   * One request answered in this process, as the surface's server would answer it (faults
   * included), without a socket: the bulk builder (bench/scale/bulk.ts) reads blocks so.
   */
  answer(
    surface: 'rpc' | 'rest' | 'jsonrpc',
    req: SimHttpRequest,
  ): Promise<{ status: number; body: string | Buffer }>;
  close(): Promise<void>;
}

/** Answers a node surface replaced by a fault, by kind. */
export interface FaultCounts {
  /** Connection destroyed instead of an answer. */
  reset: number;
  /** Never answered (the client times out). */
  timeout: number;
  '429': number;
  '5xx': number;
}

/** Every fault the simulator has served, counted as it served it. */
export interface FaultLog {
  rpc: FaultCounts;
  rest: FaultCounts;
  jsonrpc: FaultCounts;
  /** REST tx pages served with fewer txs than the block holds. */
  shortPages: number;
  /** block_results refused because results lag /block. */
  laggedResults: number;
  /** Node answers delayed by the latency setting. */
  delayed: number;
  /** Requests each node surface answered (faults included; the /sim/ routes not). */
  served: Record<'rpc' | 'rest' | 'jsonrpc', number>;
  /**
   * Refusals of a height below the node's lowest: RPC and REST answers saying so ("height X is not
   * available, lowest height is Y", or the SDK's pruned-state error), and each JSON-RPC call
   * answered null or with the pruned-state error (docs/node-data.md §5.3).
   */
  unavailable: number;
  /** `unavailable` by surface. */
  refused: Record<'rpc' | 'rest' | 'jsonrpc', number>;
}
