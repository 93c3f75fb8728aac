import { accountBytesFromString, toBech32 } from '../../shared/address.js';
import type { VmType } from '../types.js';
import { executeMove, moveAddress, publishMove, type MsgOutcome } from './exec-move.js';
import { executeContract, instantiate, storeCode, type WasmState } from './exec-wasm.js';
import { createL1Vip, type L1VipOptions, type L1Vip } from './l1.js';
import type { MoveVipScore } from './move-model.js';
import { decodeTx, TxReject, verifySignature, type DecodedTx } from './tx-decode.js';

export interface VipChainOptions {
  chainId: string;
  vm: VmType;
  prefix?: string;
  /** Minimum gas price, e.g. { amount: 0.015, denom: 'umin' }. */
  minGasPrice?: { amount: number; denom: string };
  /** Rollup binary version served by /abci_info. */
  version?: string;
  maxTxBytes?: number;
  /** Create unknown accounts on first use (a faucet), for interactive `sim --vip` sessions. */
  autoFund?: boolean;
  /** Serve the L1 VIP module store as well (an L1 chain model). */
  l1?: L1VipOptions;
  now?: () => number;
}

export interface TxRecord {
  hash: string;
  height: number;
  index: number;
  code: number;
  codespace: string;
  log: string;
  gasWanted: bigint;
  gasUsed: bigint;
  events: MsgOutcome['events'];
  raw: Uint8Array;
  time: string;
}

export interface AccountState {
  accountNumber: bigint;
  sequence: bigint;
  pubKey?: Uint8Array;
  algo?: DecodedTx['algo'];
}

/** Faults for tests: the next broadcasts are answered/included differently. */
export interface VipChainFaults {
  /**
   * Hold the next accepted tx in the mempool (lookups answer "not found") until `releaseHeld()`:
   * a test includes it when the client has given up waiting, not after a guessed delay.
   */
  holdNextInclusion?: boolean;
  /** Drop the HTTP answer of the next broadcast after accepting the tx (the client sees an error). */
  failNextBroadcastResponse?: boolean;
  /** Reject the next broadcast at CheckTx with this code and log. */
  rejectNextBroadcast?: { code: number; log: string };
  /** Multiply simulated gas by this factor (< 1 makes simulations under-estimate, as on Initia). */
  simulateGasFactor?: number;
  /** Accept `after` more txs, then reject one broadcast with this code (an interruption). */
  rejectAfter?: { after: number; code: number; log: string };
}

const TX_BASE_GAS = 20_000n;
const TX_BYTE_GAS = 10n;

/** The chain's mutable state, shared by the steps below (one per chain instance). */
interface VipChainState {
  options: VipChainOptions;
  prefix: string;
  now: () => number;
  minGas: { amount: number; denom: string };
  accounts: Map<string, AccountState>;
  txs: Map<string, TxRecord>;
  /** Accepted at CheckTx, not yet included: hash → signer key. */
  pending: Map<string, string>;
  moveModules: Map<string, MoveVipScore>;
  wasm: WasmState;
  faults: VipChainFaults;
  held: { tx: DecodedTx; account: AccountState }[];
  stats: { includedTxs: number; executedMsgs: number; failedTxs: number };
  height: number;
  nextAccountNumber: bigint;
}

function newChainState(options: VipChainOptions): VipChainState {
  return {
    options,
    prefix: options.prefix ?? 'init',
    now: options.now ?? Date.now,
    minGas: options.minGasPrice ?? { amount: 0.015, denom: 'umin' },
    accounts: new Map(),
    txs: new Map(),
    pending: new Map(),
    moveModules: new Map(),
    wasm: { codes: new Map(), contracts: new Map(), nextCodeId: 1n, instances: 0n },
    faults: {},
    held: [],
    stats: { includedTxs: 0, executedMsgs: 0, failedTxs: 0 },
    height: 1,
    nextAccountNumber: 1n,
  };
}

const accountKey = (state: VipChainState, bytes: Uint8Array) => toBech32(bytes, state.prefix);

function fundAccount(state: VipChainState, address: string): AccountState {
  const k = accountKey(state, accountBytesFromString(address, state.prefix));
  let acc = state.accounts.get(k);
  if (!acc) {
    acc = { accountNumber: state.nextAccountNumber++, sequence: 0n };
    state.accounts.set(k, acc);
  }
  return acc;
}

function pendingOf(state: VipChainState, signer: string): number {
  let n = 0;
  for (const pendingSigner of state.pending.values()) if (pendingSigner === signer) n++;
  return n;
}

/**
 * Ante handler: size, decoding (unless the caller decoded the bytes already), fees,
 * signer/sender match, sequence, signature.
 */
function ante(
  state: VipChainState,
  raw: Uint8Array,
  simulate: boolean,
  decoded?: DecodedTx,
): { tx: DecodedTx; account: AccountState } {
  const { options, prefix } = state;
  if (raw.length > (options.maxTxBytes ?? 1_048_576)) throw new TxReject(21, 'tx too large: tx too large');
  const tx = decoded ?? decodeTx(raw);
  const signer = accountKey(state, tx.signer);
  for (const sender of tx.msgSenders) {
    if (accountKey(state, accountBytesFromString(sender, prefix)) !== signer) {
      throw new TxReject(
        8,
        `pubKey does not match signer address ${sender} with signer index: 0: invalid pubkey`,
      );
    }
  }
  const account = state.accounts.get(signer) ?? (options.autoFund ? fundAccount(state, signer) : undefined);
  if (!account) throw new TxReject(9, `account ${signer} not found: unknown address`);
  const expected = account.sequence + (simulate ? 0n : BigInt(pendingOf(state, signer)));
  if (tx.sequence !== expected) {
    throw new TxReject(
      32,
      `account sequence mismatch, expected ${expected}, got ${tx.sequence}: incorrect account sequence`,
    );
  }
  if (!simulate) checkFeeAndSignature(state, tx, account);
  return { tx, account };
}

function checkFeeAndSignature(state: VipChainState, tx: DecodedTx, account: AccountState): void {
  const { minGas, options } = state;
  const required = Math.ceil(Number(tx.gasLimit) * minGas.amount);
  const paid = Number(tx.fee.find((c) => c.denom === minGas.denom)?.amount ?? 0);
  if (paid < required) {
    throw new TxReject(
      13,
      `insufficient fees; got: ${paid}${minGas.denom} required: ${required}${minGas.denom}: insufficient fee`,
    );
  }
  if (!verifySignature(tx, options.chainId, account.accountNumber)) {
    throw new TxReject(
      4,
      `signature verification failed; please verify account number (${account.accountNumber}), sequence (${tx.sequence}) and chain-id (${options.chainId}): unauthorized`,
    );
  }
}

function runMsgs(state: VipChainState, tx: DecodedTx, commit: boolean): MsgOutcome {
  let gas = TX_BASE_GAS + BigInt(tx.raw.length) * TX_BYTE_GAS;
  const events: MsgOutcome['events'] = [];
  tx.msgs.forEach((m, i) => {
    try {
      const out = runMsg(state, m, commit);
      gas += out.gas;
      events.push(...out.events);
    } catch (err) {
      if (err instanceof TxReject) {
        throw new TxReject(
          err.code,
          `failed to execute message; message index: ${i}: ${err.message}`,
          err.codespace,
        );
      }
      throw err;
    }
  });
  return { gas, events };
}

function runMsg(state: VipChainState, m: DecodedTx['msgs'][number], commit: boolean): MsgOutcome {
  const { moveModules, prefix, wasm, options } = state;
  const vmOf = m.type.startsWith('/initia.move') ? 'move' : 'wasm';
  if (vmOf !== options.vm) throw new TxReject(2, `message ${m.type} is not served by a ${options.vm} rollup`);
  switch (m.type) {
    case '/initia.move.v1.MsgExecute':
      return executeMove(moveModules, m.value, prefix, commit);
    case '/initia.move.v1.MsgPublish':
      return publishMove(moveModules, m.value, prefix, commit);
    case '/cosmwasm.wasm.v1.MsgStoreCode':
      return storeCode(wasm, m.value, commit);
    case '/cosmwasm.wasm.v1.MsgInstantiateContract':
      return instantiate(wasm, m.value, prefix, commit);
    case '/cosmwasm.wasm.v1.MsgExecuteContract':
      return executeContract(wasm, m.value, commit);
  }
}

function simulateTx(
  state: VipChainState,
  raw: Uint8Array,
): { gasUsed: bigint; events: MsgOutcome['events'] } {
  const { tx } = ante(state, raw, true);
  // Messages that depend on each other's effects are simulated one by one on the live state
  // without committing, which is exact for the single-message txs the VIP tool sends.
  const out = runMsgs(state, tx, false);
  const factor = state.faults.simulateGasFactor ?? 1;
  return { gasUsed: BigInt(Math.floor(Number(out.gas) * factor)), events: out.events };
}

/** Block execution: sequence and fee are consumed even when the messages fail. */
function includeTx(state: VipChainState, tx: DecodedTx, account: AccountState): void {
  state.pending.delete(tx.hash);
  account.sequence += 1n;
  account.pubKey ??= tx.pubKey;
  account.algo ??= tx.algo;
  state.height += 1;
  const record: TxRecord = {
    hash: tx.hash,
    height: state.height,
    index: 0,
    code: 0,
    codespace: '',
    log: '',
    gasWanted: tx.gasLimit,
    gasUsed: 0n,
    events: [],
    raw: tx.raw,
    time: new Date(state.now()).toISOString(),
  };
  executeIncluded(state, tx, record);
  state.stats.includedTxs += 1;
  if (record.code !== 0) state.stats.failedTxs += 1;
  state.txs.set(tx.hash, record);
}

/** Runs an included tx's messages into its record: out of gas, a failed message, or the outcome. */
function executeIncluded(state: VipChainState, tx: DecodedTx, record: TxRecord): void {
  try {
    const dry = runMsgs(state, tx, false);
    if (dry.gas > tx.gasLimit) {
      record.code = 11;
      record.log = `out of gas in location: vip; gasWanted: ${tx.gasLimit}, gasUsed: ${dry.gas}: out of gas`;
      record.gasUsed = tx.gasLimit;
    } else {
      const out = runMsgs(state, tx, true);
      record.gasUsed = out.gas;
      record.events = out.events;
      state.stats.executedMsgs += tx.msgs.length;
    }
  } catch (err) {
    if (!(err instanceof TxReject)) throw err;
    record.code = err.code;
    record.codespace = err.codespace;
    record.log = err.message;
    record.gasUsed = TX_BASE_GAS;
  }
}

/** The rejection faults a test armed for the next broadcasts. */
function applyBroadcastFaults(faults: VipChainFaults): void {
  const reject = faults.rejectNextBroadcast;
  if (reject) {
    delete faults.rejectNextBroadcast;
    throw new TxReject(reject.code, reject.log);
  }
  const later = faults.rejectAfter;
  if (later && later.after-- <= 0) {
    delete faults.rejectAfter;
    throw new TxReject(later.code, later.log);
  }
}

/** CheckTx, then inclusion in the next block (immediately, or when a held tx is released). */
function broadcastSync(
  state: VipChainState,
  raw: Uint8Array,
): { code: number; codespace: string; log: string; txhash: string } {
  let decodedHash = '';
  try {
    applyBroadcastFaults(state.faults);
    const early = decodeTx(raw);
    decodedHash = early.hash;
    if (state.pending.has(early.hash) || state.txs.has(early.hash))
      throw new TxReject(19, 'tx already exists in cache');
    const { tx, account } = ante(state, raw, false, early);
    state.pending.set(tx.hash, accountKey(state, tx.signer));
    if (state.faults.holdNextInclusion) {
      delete state.faults.holdNextInclusion;
      state.held.push({ tx, account });
    } else {
      includeTx(state, tx, account);
    }
    return { code: 0, codespace: '', log: '[]', txhash: tx.hash };
  } catch (err) {
    if (!(err instanceof TxReject)) throw err;
    return { code: err.code, codespace: err.codespace, log: err.message, txhash: decodedHash };
  }
}

export function createVipChain(options: VipChainOptions) {
  const state = newChainState(options);
  const { prefix, accounts, moveModules, wasm } = state;
  const l1: L1Vip | undefined = options.l1 ? createL1Vip(options.l1, state.now) : undefined;
  const key = (bytes: Uint8Array) => accountKey(state, bytes);
  return {
    options: { ...options, prefix },
    faults: state.faults,
    stats: state.stats,
    accounts,
    moveModules,
    wasm,
    l1,
    height: () => state.height,
    now: state.now,
    fundAccount: (address: string) => fundAccount(state, address),
    account: (address: string) => {
      const k = key(accountBytesFromString(address, prefix));
      return accounts.get(k) ?? (options.autoFund ? fundAccount(state, k) : undefined);
    },
    accountKey: key,
    simulate: (raw: Uint8Array) => simulateTx(state, raw),
    broadcastSync: (raw: Uint8Array) => broadcastSync(state, raw),
    /** Includes the txs held by `faults.holdNextInclusion`, in broadcast order; answers how many. */
    releaseHeld: (): number => {
      const released = state.held.splice(0);
      for (const { tx, account } of released) includeTx(state, tx, account);
      return released.length;
    },
    /** How many accepted txs are held (accepted at CheckTx, not yet included). */
    heldCount: () => state.held.length,
    tx: (hash: string) => state.txs.get(hash.toUpperCase()),
    moveModule: (address: string) => moveModules.get(moveAddress(address, prefix)),
    wasmContract: (address: string) => wasm.contracts.get(address),
    minGasPrice: state.minGas,
  };
}

export type VipChain = ReturnType<typeof createVipChain>;
export { TxReject };
