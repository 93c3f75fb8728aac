/** Shared vocabulary of the VIP operator tool: operations, planned/signed txs, results. */
import type { VmType } from '../shared/config.js';

export type { VmType };

export interface ScoreEntry {
  /** Address in the VM's canonical text form (EVM 0x-lower, Move 0x-64, Wasm init1-lower). */
  addr: string;
  amount: bigint;
}

export interface StageInfo {
  stage: bigint;
  totalScore: bigint;
  isFinalized: boolean;
}

export type VipOp =
  | { kind: 'updateScores'; stage: bigint; entries: ScoreEntry[] }
  | { kind: 'finalize'; stage: bigint }
  | { kind: 'allow'; addr: string }
  | { kind: 'disallow'; addr: string }
  | { kind: 'addDeployer'; addr: string }
  | { kind: 'setInitStage'; stage: bigint }
  | { kind: 'deployEvm'; initStage: bigint }
  | { kind: 'publishMove'; modules: Uint8Array[] }
  | { kind: 'storeWasm'; wasm: Uint8Array }
  | {
      kind: 'instantiateWasm';
      codeId: bigint;
      initStage: bigint;
      allowList: string[];
      label: string;
      admin: string;
    };

export interface PlannedTx {
  /** What is about to be sent, in printable JSON form (messages or call data). */
  messages: unknown[];
  gasLimit: bigint;
  /** Fee description, e.g. "1500umin" or "21000 gas × 1000000000 wei". */
  fee: string;
  /** Simulated gas used (before adjustment). */
  gasEstimate: bigint;
  /** VM-specific request the backend signs later (not printed). */
  request: unknown;
}

export interface SignedTx {
  /** Chain tx hash (Cosmos: upper-case hex sha256; EVM: 0x keccak). */
  hash: string;
  /** Opaque bytes to (re)broadcast: re-sending the same bytes can never execute twice. */
  raw: Uint8Array;
  planned: PlannedTx;
}

export interface BroadcastAck {
  accepted: boolean;
  code: number;
  log: string;
}

export interface TxResult {
  hash: string;
  height: number;
  success: boolean;
  code: number;
  log: string;
  gasUsed: bigint;
  /** Created contract / code id, when the tx produced one. */
  contractAddress?: string;
  codeId?: bigint;
}

/** Extra gas on top of the configured adjustment, raised after out-of-gas failures. */
export interface PlanTuning {
  gasMultiplier?: number;
}

/** Cosmos SDK out-of-gas code; EVM out-of-gas receipts are reported with the same code. */
export const OUT_OF_GAS_CODE = 11;

/** One VM's view of a deployed score contract plus a way to send operations to it. */
export interface VipBackend {
  readonly vm: VmType;
  /** Sender address in the form the contract compares with. */
  senderAddress(): Promise<string>;
  normaliseAddress(text: string): string;
  initStage(): Promise<bigint | undefined>;
  stageInfo(stage: bigint): Promise<StageInfo | undefined>;
  score(stage: bigint, addr: string): Promise<bigint>;
  /** Members allowed to write (EVM: undefined — only per-address lookup; Wasm: no query). */
  writers(): Promise<string[] | undefined>;
  isWriter(addr: string): Promise<boolean | undefined>;
  /** Simulates and prices an operation; throws ChainError with the decoded contract error. */
  plan(op: VipOp, tuning?: PlanTuning): Promise<PlannedTx>;
  sign(planned: PlannedTx): Promise<SignedTx>;
  broadcast(tx: SignedTx): Promise<BroadcastAck>;
  lookup(hash: string): Promise<TxResult | undefined>;
}
