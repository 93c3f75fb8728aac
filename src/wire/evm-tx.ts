import { Type } from '@sinclair/typebox';
import { sanitiseNul } from './json-text.js';
import { listEnvelope } from './pagination.js';
import { nullableString, ref } from './schema.js';

/**
 * The EVM tx document (docs/api.md, tx.EvmTx): the tx's receipt, stored in `evm_tx.data` as the
 * exact text the API serves: exactly the keys of EVM_TX_KEY_ORDER in that order, values as the node
 * sent them; `to: null` (contract creation) becomes "", other receipt fields are dropped.
 */

/** Version of the stored text (see TX_FORMAT_VERSION in ./tx.ts for what a version is). */
export const EVM_TX_FORMAT_VERSION = 1;

export const EVM_TX_KEY_ORDER = [
  'blockHash',
  'blockNumber',
  'contractAddress',
  'cumulativeGasUsed',
  'effectiveGasPrice',
  'from',
  'gasUsed',
  'logs',
  'logsBloom',
  'status',
  'to',
  'transactionHash',
  'transactionIndex',
  'type',
] as const;

export const EVM_LOG_KEY_ORDER = [
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

const EvmLog = Type.Object({
  address: Type.String(),
  topics: Type.Array(Type.String()),
  data: Type.String(),
  blockNumber: Type.String(),
  transactionHash: Type.String(),
  transactionIndex: Type.String(),
  blockHash: Type.String(),
  logIndex: Type.String(),
  removed: Type.Boolean(),
});

export const EvmTx = Type.Object(
  {
    blockHash: Type.String(),
    blockNumber: Type.String(),
    contractAddress: nullableString(),
    cumulativeGasUsed: Type.String(),
    effectiveGasPrice: Type.String(),
    from: Type.String(),
    gasUsed: Type.String(),
    logs: Type.Unsafe<unknown[] | null>({ type: 'array', items: EvmLog, nullable: true }),
    logsBloom: Type.String(),
    status: Type.String(),
    to: Type.String(),
    transactionHash: Type.String(),
    transactionIndex: Type.String(),
    type: Type.String(),
  },
  { $id: 'tx.EvmTx' },
);
export const EvmTxsResponse = listEnvelope('tx.EvmTxsResponse', 'txs', 'tx.EvmTx');
export const EvmTxResponse = Type.Object({ tx: ref('tx.EvmTx') }, { $id: 'tx.EvmTxResponse' });

/** A receipt as eth_getBlockReceipts gives it (only the keys above are read). */
export type EvmReceiptLike = Readonly<Record<string, unknown>>;

export function renderEvmTxJson(r: EvmReceiptLike): string {
  const document = pick(r, EVM_TX_KEY_ORDER);
  document['contractAddress'] = r['contractAddress'] ?? null;
  document['to'] = r['to'] ?? '';
  document['logs'] = Array.isArray(r['logs'])
    ? r['logs'].map((log: Readonly<Record<string, unknown>>) => pick(log, EVM_LOG_KEY_ORDER))
    : null;
  // The NUL rule (docs/api.md); stringify leaves only the escaped `\u0000` form.
  return sanitiseNul(JSON.stringify(document));
}

function pick(obj: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = obj[k];
  return out;
}
