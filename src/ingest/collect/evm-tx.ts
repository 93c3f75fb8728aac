import type { EvmReceipt } from '../../node/evm.js';
import { sanitiseNul } from '../decode/json-text.js';

const LOG_KEYS = [
  'address',
  'topics',
  'data',
  'blockNumber',
  'transactionHash',
  'transactionIndex',
  'blockHash',
  'logIndex',
  'removed',
] as const;

/**
 * The API's EvmTx object (spec/api.md §5.3): exactly 14 receipt keys in this order, values as the
 * node sent them; `to: null` (contract creation) becomes "", other receipt fields are dropped.
 */
export function renderEvmTxJson(receipt: EvmReceipt): string {
  const r = receipt as Record<string, unknown>;
  const logs = Array.isArray(r.logs)
    ? r.logs.map((log) => pick(log as Record<string, unknown>, LOG_KEYS))
    : null;
  const json = JSON.stringify({
    blockHash: r.blockHash,
    blockNumber: r.blockNumber,
    contractAddress: r.contractAddress ?? null,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    from: r.from,
    gasUsed: r.gasUsed,
    logs,
    logsBloom: r.logsBloom,
    status: r.status,
    to: r.to ?? '',
    transactionHash: r.transactionHash,
    transactionIndex: r.transactionIndex,
    type: r.type,
  });
  // The indexer's NUL rule (spec/indexer.md §3.4); stringify leaves only the escaped `\u0000` form.
  return sanitiseNul(json);
}

function pick(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = obj[k];
  return out;
}
