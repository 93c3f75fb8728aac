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

export function createVipChain(options: VipChainOptions) {
  const prefix = options.prefix ?? 'init';
  const now = options.now ?? Date.now;
  const minGas = options.minGasPrice ?? { amount: 0.015, denom: 'umin' };
  const accounts = new Map<string, AccountState>();
  const txs = new Map<string, TxRecord>();
  const pending = new Set<string>();
  const moveModules = new Map<string, MoveVipScore>();
  const wasm: WasmState = { codes: new Map(), contracts: new Map(), nextCodeId: 1n, instances: 0n };
  const faults: VipChainFaults = {};
  const held: { tx: DecodedTx; account: AccountState }[] = [];
  const stats = { includedTxs: 0, executedMsgs: 0, failedTxs: 0 };
  const l1: L1Vip | undefined = options.l1 ? createL1Vip(options.l1, now) : undefined;
  let height = 1;
  let nextAccountNumber = 1n;

  const key = (bytes: Uint8Array) => toBech32(bytes, prefix);

  function fundAccount(address: string): AccountState {
    const k = key(accountBytesFromString(address, prefix));
    let acc = accounts.get(k);
    if (!acc) {
      acc = { accountNumber: nextAccountNumber++, sequence: 0n };
      accounts.set(k, acc);
    }
    return acc;
  }

  /**
   * Ante handler: size, decoding (unless the caller decoded the bytes already), fees,
   * signer/sender match, sequence, signature.
   */
  function ante(
    raw: Uint8Array,
    simulate: boolean,
    decoded?: DecodedTx,
  ): { tx: DecodedTx; account: AccountState } {
    if (raw.length > (options.maxTxBytes ?? 1_048_576)) throw new TxReject(21, 'tx too large: tx too large');
    const tx = decoded ?? decodeTx(raw);
    const signer = key(tx.signer);
    for (const sender of tx.msgSenders) {
      if (key(accountBytesFromString(sender, prefix)) !== signer) {
        throw new TxReject(
          8,
          `pubKey does not match signer address ${sender} with signer index: 0: invalid pubkey`,
        );
      }
    }
    const account = accounts.get(signer) ?? (options.autoFund ? fundAccount(signer) : undefined);
    if (!account) throw new TxReject(9, `account ${signer} not found: unknown address`);
    const expected = account.sequence + (simulate ? 0n : BigInt(pendingOf(signer)));
    if (tx.sequence !== expected) {
      throw new TxReject(
        32,
        `account sequence mismatch, expected ${expected}, got ${tx.sequence}: incorrect account sequence`,
      );
    }
    if (!simulate) {
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
    return { tx, account };
  }

  function pendingOf(signer: string): number {
    let n = 0;
    for (const h of pending) if (pendingSigner.get(h) === signer) n++;
    return n;
  }
  const pendingSigner = new Map<string, string>();

  function runMsgs(tx: DecodedTx, commit: boolean): MsgOutcome {
    let gas = TX_BASE_GAS + BigInt(tx.raw.length) * TX_BYTE_GAS;
    const events: MsgOutcome['events'] = [];
    tx.msgs.forEach((m, i) => {
      try {
        const out = runMsg(m, commit);
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

  function runMsg(m: DecodedTx['msgs'][number], commit: boolean): MsgOutcome {
    const vmOf = m.type.startsWith('/initia.move') ? 'move' : 'wasm';
    if (vmOf !== options.vm)
      throw new TxReject(2, `message ${m.type} is not served by a ${options.vm} rollup`);
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

  function simulate(raw: Uint8Array): { gasUsed: bigint; events: MsgOutcome['events'] } {
    const { tx } = ante(raw, true);
    // Messages that depend on each other's effects are simulated one by one on the live state
    // without committing, which is exact for the single-message txs the VIP tool sends.
    const out = runMsgs(tx, false);
    const factor = faults.simulateGasFactor ?? 1;
    return { gasUsed: BigInt(Math.floor(Number(out.gas) * factor)), events: out.events };
  }

  /** Block execution: sequence and fee are consumed even when the messages fail. */
  function include(tx: DecodedTx, account: AccountState): void {
    pending.delete(tx.hash);
    pendingSigner.delete(tx.hash);
    account.sequence += 1n;
    account.pubKey ??= tx.pubKey;
    account.algo ??= tx.algo;
    height += 1;
    const record: TxRecord = {
      hash: tx.hash,
      height,
      index: 0,
      code: 0,
      codespace: '',
      log: '',
      gasWanted: tx.gasLimit,
      gasUsed: 0n,
      events: [],
      raw: tx.raw,
      time: new Date(now()).toISOString(),
    };
    try {
      const dry = runMsgs(tx, false);
      if (dry.gas > tx.gasLimit) {
        record.code = 11;
        record.log = `out of gas in location: vip; gasWanted: ${tx.gasLimit}, gasUsed: ${dry.gas}: out of gas`;
        record.gasUsed = tx.gasLimit;
      } else {
        const out = runMsgs(tx, true);
        record.gasUsed = out.gas;
        record.events = out.events;
        stats.executedMsgs += tx.msgs.length;
      }
    } catch (err) {
      if (!(err instanceof TxReject)) throw err;
      record.code = err.code;
      record.codespace = err.codespace;
      record.log = err.message;
      record.gasUsed = TX_BASE_GAS;
    }
    stats.includedTxs += 1;
    if (record.code !== 0) stats.failedTxs += 1;
    txs.set(tx.hash, record);
  }

  /** CheckTx, then inclusion in the next block (immediately, or when a held tx is released). */
  function broadcastSync(raw: Uint8Array): { code: number; codespace: string; log: string; txhash: string } {
    let decodedHash = '';
    try {
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
      const early = decodeTx(raw);
      decodedHash = early.hash;
      if (pending.has(early.hash) || txs.has(early.hash))
        throw new TxReject(19, 'tx already exists in cache');
      const { tx, account } = ante(raw, false, early);
      pending.add(tx.hash);
      pendingSigner.set(tx.hash, key(tx.signer));
      if (faults.holdNextInclusion) {
        delete faults.holdNextInclusion;
        held.push({ tx, account });
      } else {
        include(tx, account);
      }
      return { code: 0, codespace: '', log: '[]', txhash: tx.hash };
    } catch (err) {
      if (!(err instanceof TxReject)) throw err;
      return { code: err.code, codespace: err.codespace, log: err.message, txhash: decodedHash };
    }
  }

  return {
    options: { ...options, prefix },
    faults,
    stats,
    accounts,
    moveModules,
    wasm,
    l1,
    height: () => height,
    now,
    fundAccount,
    account: (address: string) => {
      const k = key(accountBytesFromString(address, prefix));
      return accounts.get(k) ?? (options.autoFund ? fundAccount(k) : undefined);
    },
    accountKey: key,
    simulate,
    broadcastSync,
    /** Includes the txs held by `faults.holdNextInclusion`, in broadcast order; answers how many. */
    releaseHeld: (): number => {
      const released = held.splice(0);
      for (const { tx, account } of released) include(tx, account);
      return released.length;
    },
    /** How many accepted txs are held (accepted at CheckTx, not yet included). */
    heldCount: () => held.length,
    tx: (hash: string) => txs.get(hash.toUpperCase()),
    moveModule: (address: string) => moveModules.get(moveAddress(address, prefix)),
    wasmContract: (address: string) => wasm.contracts.get(address),
    minGasPrice: minGas,
  };
}

export type VipChain = ReturnType<typeof createVipChain>;
export { TxReject };
