import { accountBytesFromString, toBech32 } from '../../shared/address.js';
import { AppError } from '../../shared/errors.js';
import type { Queryable } from '../../store/driver/db.js';
import {
  activeDays,
  feesPaid,
  gasUsed,
  msgTxs,
  nftReceipts,
  nftReceiptsFrom,
  txsSigned,
  type MessageFilter,
  type ScoreMetricRow,
  type SequenceRange,
} from '../../store/readers/vip-score-metrics.js';
import type { ScoresVm } from './address-form.js';
import type { ScoreMetric } from './rules.js';

const MSG_CALL = 'minievm.evm.v1.MsgCall';

/** Which VMs a metric kind applies to (undefined = all). */
const KIND_VMS: Partial<Record<ScoreMetric['kind'], readonly ScoresVm[]>> = { evm_txs_to: ['evm'] };

/** The window as heights and as its txs' sequence range (undefined: no tx in it). */
export interface ScoreMetricWindow {
  heights: { from: number; to: number };
  txs: SequenceRange | undefined;
}

/** One metric's (account, value) rows over the window: one SQL aggregation. */
export async function readScoreMetric(
  db: Queryable,
  window: ScoreMetricWindow,
  metric: ScoreMetric,
  chain: { vm: ScoresVm; prefix: string },
): Promise<ScoreMetricRow[]> {
  const vms = KIND_VMS[metric.kind];
  if (vms && !vms.includes(chain.vm)) {
    throw new AppError(
      'invalid_rules',
      `metric ${metric.name}: kind ${metric.kind} needs a ${vms.join('/')} rollup`,
    );
  }
  if (metric.kind === 'nft_mints' || metric.kind === 'nft_received') {
    const since = await nftReceiptsFrom(db);
    if (window.heights.from < since) {
      throw new AppError(
        'window_not_indexed',
        `metric ${metric.name}: NFT receipts are recorded from height ${since} on (this index was upgraded then); the window starts at ${window.heights.from}`,
      );
    }
    const collection = metric.collection ? collectionBytes(metric.collection, chain) : undefined;
    return nftReceipts(db, window.heights, metric.kind === 'nft_mints', collection);
  }
  const w = window.txs;
  if (!w) return [];
  switch (metric.kind) {
    case 'txs_signed':
      return txsSigned(db, w);
    case 'gas_used':
      return gasUsed(db, w);
    case 'fees_paid':
      return feesPaid(db, w, metric.denom ?? '');
    case 'active_days':
      return activeDays(db, w);
    case 'msg_txs':
      return msgTxs(db, w, metric.msgTypes ?? [], messageFilter(metric, chain.prefix));
    case 'evm_txs_to':
      return msgTxs(db, w, [MSG_CALL], evmCallFilter(metric, chain.prefix));
  }
}

/** Collection address bytes as nft_collection stores them: 20 bytes on EVM, 32 on Move and Wasm. */
function collectionBytes(text: string, chain: { vm: ScoresVm; prefix: string }): Uint8Array {
  if (!text.startsWith('0x')) return accountBytesFromString(text, chain.prefix);
  const digits = text.slice(2).toLowerCase();
  const width = chain.vm === 'evm' ? 40 : 64;
  if (!/^[0-9a-f]*$/.test(digits) || digits.length > width) {
    throw new AppError('invalid_rules', `collection ${text} is not a ${width / 2}-byte address`);
  }
  return Buffer.from(digits.padStart(width, '0'), 'hex');
}

function bech32Of(text: string, prefix: string): string {
  return toBech32(accountBytesFromString(text, prefix), prefix);
}

/** Hex digits without 0x and leading zeros: "0x1" and "0x0…01" compare equal. */
function bareHex(text: string, prefix: string): string {
  return Buffer.from(accountBytesFromString(text, prefix)).toString('hex').replace(/^0+/, '');
}

/** A JSON field as PostgreSQL's `->>` gives it: strings as is, other values as JSON text, null absent. */
function field(m: Record<string, unknown>, key: string): string | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function messageFilter(metric: ScoreMetric, prefix: string): MessageFilter | undefined {
  if (metric.move) {
    const { moduleAddress, moduleName, function: fn } = metric.move;
    const hex = bareHex(moduleAddress, prefix);
    const bech32 = bech32Of(moduleAddress, prefix);
    return (m) => {
      const addr = field(m, 'module_address');
      if (addr === undefined) return false;
      const sameAddress = addr.replace(/^0x/, '').toLowerCase().replace(/^0+/, '') === hex || addr === bech32;
      return sameAddress && field(m, 'module_name') === moduleName && field(m, 'function_name') === fn;
    };
  }
  if (metric.wasmContract) {
    const contract = bech32Of(metric.wasmContract, prefix);
    return (m) => field(m, 'contract') === contract;
  }
  return undefined;
}

function evmCallFilter(metric: ScoreMetric, prefix: string): MessageFilter {
  const contract = metric.contract ?? '';
  const bech32 = bech32Of(contract, prefix);
  const selector = (metric.selector ?? '').replace(/^0x/, '');
  return (m) => {
    const to = field(m, 'contract_addr');
    const input = field(m, 'input');
    if (to === undefined || input === undefined) return false;
    return (
      (to.toLowerCase() === contract || to === bech32) &&
      input.toLowerCase().replace(/^0x/, '').startsWith(selector)
    );
  };
}
