/**
 * The independent oracle for `vip scores compute`: the scores a rules file gives over a window of
 * heights, computed from the simulator's own ground truth (TxTruth, its calls and Ethereum tx, the
 * NFT lifecycle's moves, block times) — never from the indexer's tables or SQL. Follows the rules
 * contract (docs/vip-scores.md): a tx counts for its signer when it succeeded; gas and fees are
 * charged to the fee payer of every tx; score = rounding(Σ weight × value), then the cap, then the
 * exclusions, zero and the minimum drop the address.
 */
import { tryAccountBytes } from '../../src/shared/address.js';
import type { BlockTruth, NftMoveTruth, Simulator, TxTruth } from '../../src/sim/types.js';

type Decimal = number | string;

/** One metric of the rules file, as the contract writes it. */
export type MetricRule = { name: string; weight: Decimal } & (
  | { kind: 'txs_signed' | 'gas_used' | 'active_days' }
  | { kind: 'fees_paid'; denom: string }
  | {
      kind: 'msg_txs';
      msg_types: string[];
      move?: { module_address?: string; module_name?: string; function?: string };
      wasm?: { contract: string };
    }
  | { kind: 'evm_txs_to'; contract: string; selector?: string }
  | { kind: 'nft_mints' | 'nft_received'; collection?: string }
);

export interface ScoreRules {
  version: 1;
  metrics: MetricRule[];
  cap?: Decimal;
  minimum?: Decimal;
  exclude?: string[];
  exclude_operator?: boolean;
  rounding?: 'floor' | 'round_half_up' | 'ceil';
}

/** Inclusive height range. */
export interface HeightWindow {
  from: number;
  to: number;
}

export interface ExpectedScores {
  /** Address key (see addressKey) → final score, only the addresses the file must list. */
  scores: Map<string, bigint>;
  /** Address key → metric name → raw value, for every address any metric saw. */
  values: Map<string, Record<string, bigint>>;
  /** Metric name → sum of its raw values over every address (before exclusions). */
  totals: Record<string, bigint>;
}

const PREFIX = 'init';
const SCALE = 10n ** 18n;

/**
 * A comparable key for an address in any form the VMs use (bech32, 0x hex of 20 or 32 bytes, Move
 * short hex): lower-case hex of its bytes without leading zero bytes, so a Move address padded to
 * 32 bytes and its 20-byte form agree.
 */
export function addressKey(text: string): string {
  const bytes = tryAccountBytes(text, PREFIX) ?? moveShortHex(text);
  if (!bytes) throw new Error(`oracle: not an address: ${text}`);
  return Buffer.from(bytes)
    .toString('hex')
    .replace(/^(00)+/, '');
}

function moveShortHex(text: string): Uint8Array | undefined {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(text)) return undefined;
  const hex = text.slice(2);
  return Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex');
}

/** Exact decimal text (up to 18 fractional digits) → value × 10^18. */
export function scaled(value: Decimal): bigint {
  const text = String(value);
  const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (!m) throw new Error(`oracle: not a decimal: ${text}`);
  return BigInt(m[1]!) * SCALE + BigInt((m[2] ?? '').padEnd(18, '0') || '0');
}

function rounded(sum: bigint, mode: ScoreRules['rounding']): bigint {
  const whole = sum / SCALE;
  const rest = sum % SCALE;
  if (mode === 'ceil') return rest > 0n ? whole + 1n : whole;
  if (mode === 'round_half_up') return rest * 2n >= SCALE ? whole + 1n : whole;
  return whole;
}

interface WindowTruth {
  blocks: BlockTruth[];
  moves: NftMoveTruth[];
}

function windowTruth(sim: Simulator, w: HeightWindow): WindowTruth {
  const blocks: BlockTruth[] = [];
  const moves: NftMoveTruth[] = [];
  for (let h = w.from; h <= w.to; h++) {
    const block = sim.truth.block(h);
    blocks.push(block);
    // An NFT move happens only when its tx succeeded (the lifecycle never plans a failing one).
    moves.push(...sim.truth.nftMoves(h).filter((m) => block.txs[m.txIndex]!.success));
  }
  return { blocks, moves };
}

const sameAddress = (a: string, b: string): boolean => addressKey(a) === addressKey(b);
const typeOf = (url: string): string => url.replace(/^\//, '');

function msgMatches(tx: TxTruth, rule: Extract<MetricRule, { kind: 'msg_txs' }>): boolean {
  const types = new Set(rule.msg_types.map(typeOf));
  return (tx.calls ?? []).some((call) => {
    if (!types.has(call.type)) return false;
    if (rule.move) {
      const m = call.move;
      if (!m) return false;
      if (rule.move.module_address !== undefined && !sameAddress(rule.move.module_address, m.moduleAddress))
        return false;
      if (rule.move.module_name !== undefined && rule.move.module_name !== m.moduleName) return false;
      if (rule.move.function !== undefined && rule.move.function !== m.functionName) return false;
    }
    if (rule.wasm && (!call.wasmContract || !sameAddress(rule.wasm.contract, call.wasmContract)))
      return false;
    return true;
  });
}

const utcDate = (time: string): string => time.slice(0, 10);

/** Raw value per address for one metric over the window. */
function metricValues(rule: MetricRule, truth: WindowTruth): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const add = (address: string, v: bigint): void => {
    const key = addressKey(address);
    out.set(key, (out.get(key) ?? 0n) + v);
  };
  const signed = (each: (tx: TxTruth, block: BlockTruth) => void): void => {
    for (const block of truth.blocks) for (const tx of block.txs) if (tx.success) each(tx, block);
  };
  switch (rule.kind) {
    case 'txs_signed':
      signed((tx) => add(tx.signer, 1n));
      break;
    case 'gas_used':
      for (const b of truth.blocks) for (const tx of b.txs) add(tx.signer, BigInt(tx.gasUsed));
      break;
    case 'fees_paid':
      for (const b of truth.blocks)
        for (const tx of b.txs)
          for (const coin of tx.fee) if (coin.denom === rule.denom) add(tx.signer, BigInt(coin.amount));
      break;
    case 'msg_txs':
      signed((tx) => msgMatches(tx, rule) && add(tx.signer, 1n));
      break;
    case 'evm_txs_to': {
      const selector = rule.selector?.toLowerCase();
      const hits = (call: NonNullable<TxTruth['calls']>[number]): boolean =>
        call.evmCall !== undefined &&
        sameAddress(call.evmCall.contract, rule.contract) &&
        (selector === undefined || call.evmCall.input.toLowerCase().startsWith(selector));
      signed((tx) => (tx.calls ?? []).some(hits) && add(tx.signer, 1n));
      break;
    }
    case 'nft_mints':
    case 'nft_received': {
      const kind = rule.kind === 'nft_mints' ? 'mint' : 'transfer';
      for (const m of truth.moves) {
        if (m.kind !== kind) continue;
        // A transfer to its own holder moves nothing in.
        if (kind === 'transfer' && sameAddress(m.from!, m.to)) continue;
        if (rule.collection !== undefined && !sameAddress(rule.collection, m.collectionAddr)) continue;
        add(m.to, 1n);
      }
      break;
    }
    case 'active_days': {
      const days = new Map<string, Set<string>>();
      signed((tx, block) => {
        const key = addressKey(tx.signer);
        if (!days.has(key)) days.set(key, new Set());
        days.get(key)!.add(utcDate(block.time));
      });
      for (const [key, set] of days) out.set(key, BigInt(set.size));
      break;
    }
  }
  return out;
}

export const U64_MAX = (1n << 64n) - 1n;

/**
 * The scores file the rules must give over `window` of `sim`'s chain. `excluded` are addresses
 * excluded besides the rules' own list (the operator's, module accounts), in any form.
 */
export function expectedScores(
  sim: Simulator,
  rules: ScoreRules,
  window: HeightWindow,
  excluded: string[] = [],
): ExpectedScores {
  const truth = windowTruth(sim, window);
  const values = new Map<string, Record<string, bigint>>();
  const totals: Record<string, bigint> = {};
  for (const rule of rules.metrics) {
    totals[rule.name] = 0n;
    for (const [key, v] of metricValues(rule, truth)) {
      if (v === 0n) continue;
      const row = values.get(key) ?? {};
      row[rule.name] = v;
      values.set(key, row);
      totals[rule.name]! += v;
    }
  }
  const out = new Set([...(rules.exclude ?? []), ...excluded].map(addressKey));
  const cap = rules.cap === undefined ? undefined : scaled(rules.cap) / SCALE;
  const minimum = rules.minimum === undefined ? 0n : scaled(rules.minimum);
  const scores = new Map<string, bigint>();
  for (const [key, row] of values) {
    let sum = 0n;
    for (const rule of rules.metrics) sum += scaled(rule.weight) * (row[rule.name] ?? 0n);
    let score = rounded(sum, rules.rounding);
    if (cap !== undefined && score > cap) score = cap;
    if (score > U64_MAX) throw new Error(`oracle: score of ${key} exceeds u64`);
    if (out.has(key) || score === 0n || score * SCALE < minimum) continue;
    scores.set(key, score);
  }
  return { scores, values, totals };
}

/** RFC 3339 with up to 9 fractional digits → nanoseconds since the epoch. */
export function timeNs(text: string): bigint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(text);
  if (!m) throw new Error(`oracle: not an RFC 3339 UTC time: ${text}`);
  return BigInt(Date.parse(m[1]! + 'Z')) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

/**
 * The contract's edge rule for a time window [start, end): the first block with time >= start,
 * the last block with time < end, searched among heights 1..head.
 */
export function heightsOfTimes(sim: Simulator, head: number, start: string, end: string): HeightWindow {
  const s = timeNs(start);
  const e = timeNs(end);
  let from = 0;
  let to = 0;
  for (let h = 1; h <= head; h++) {
    const t = timeNs(sim.truth.block(h).time);
    if (from === 0 && t >= s) from = h;
    if (t < e) to = h;
  }
  if (from === 0 || to < from) throw new Error(`oracle: no block in [${start}, ${end})`);
  return { from, to };
}

/** Scores read back from a computed CSV (`#` lines and the header skipped), keyed as addressKey. */
export function scoresOfCsv(text: string): { keys: Map<string, bigint>; addresses: string[] } {
  const keys = new Map<string, bigint>();
  const addresses: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line === 'address,amount') continue;
    const [address, amount] = line.split(',');
    if (address === undefined || amount === undefined || !/^\d+$/.test(amount))
      throw new Error(`scores file: bad row "${line}"`);
    const key = addressKey(address);
    if (keys.has(key)) throw new Error(`scores file: ${address} listed twice`);
    keys.set(key, BigInt(amount));
    addresses.push(address);
  }
  return { keys, addresses };
}
