import { accountBytesFromString, toBech32 } from '../../shared/address.js';
import { AppError } from '../../shared/errors.js';
import type { Queryable } from '../../store/db.js';
import {
  activeDays,
  feesPaid,
  gasUsed,
  msgTxs,
  txsSigned,
  type MetricRow,
  type SequenceRange,
} from '../../store/readers/vip-metrics.js';
import type { ScoresVm } from './address-form.js';
import type { Metric } from './rules.js';

const MSG_CALL = 'minievm.evm.v1.MsgCall';

/** Which VMs a metric kind applies to (undefined = all). */
const KIND_VMS: Partial<Record<Metric['kind'], readonly ScoresVm[]>> = { evm_txs_to: ['evm'] };

/** One metric's (account, value) rows over the window: one SQL aggregation. */
export function readMetric(
  db: Queryable,
  w: SequenceRange,
  metric: Metric,
  chain: { vm: ScoresVm; prefix: string },
): Promise<MetricRow[]> {
  const vms = KIND_VMS[metric.kind];
  if (vms && !vms.includes(chain.vm)) {
    throw new AppError('invalid_rules', `metric ${metric.name}: kind ${metric.kind} needs a ${vms.join('/')} rollup`);
  }
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
    case 'nft_mints':
    case 'nft_received':
      // The index keeps which txs touched a token (tx_nfts) but not who received it per tx.
      throw new AppError('metric_unsupported', `metric ${metric.name}: kind ${metric.kind} is not computed yet`);
  }
}

function bech32Of(text: string, prefix: string): string {
  return toBech32(accountBytesFromString(text, prefix), prefix);
}

/** Hex digits without 0x and leading zeros: "0x1" and "0x0…01" compare equal. */
function bareHex(text: string, prefix: string): string {
  return Buffer.from(accountBytesFromString(text, prefix)).toString('hex').replace(/^0+/, '');
}

function messageFilter(metric: Metric, prefix: string) {
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

function evmCallFilter(metric: Metric, prefix: string) {
  const contract = metric.contract ?? '';
  return {
    sql: `(lower(m->>'contract_addr') = $5 OR m->>'contract_addr' = $6)
          AND regexp_replace(lower(m->>'input'), '^0x', '') LIKE $7`,
    params: [contract, bech32Of(contract, prefix), `${(metric.selector ?? '').replace(/^0x/, '')}%`],
  };
}
