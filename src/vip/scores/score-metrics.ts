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

function messageFilter(metric: ScoreMetric, prefix: string) {
  if (metric.move) {
    const addr = metric.move.moduleAddress;
    return {
      sql: `(ltrim(lower(regexp_replace(m->>'module_address', '^0x', '')), '0') = $5
             OR m->>'module_address' = $6)
            AND m->>'module_name' = $7 AND m->>'function_name' = $8`,
      params: [bareHex(addr, prefix), bech32Of(addr, prefix), metric.move.moduleName, metric.move.function],
    };
  }
  if (metric.wasmContract) {
    return { sql: `m->>'contract' = $5`, params: [bech32Of(metric.wasmContract, prefix)] };
  }
  return undefined;
}

function evmCallFilter(metric: ScoreMetric, prefix: string) {
  const contract = metric.contract ?? '';
  return {
    sql: `(lower(m->>'contract_addr') = $5 OR m->>'contract_addr' = $6)
          AND regexp_replace(lower(m->>'input'), '^0x', '') LIKE $7`,
    params: [contract, bech32Of(contract, prefix), `${(metric.selector ?? '').replace(/^0x/, '')}%`],
  };
}
