import { AppError } from '../../shared/errors.js';
import { accountBytesFromString } from '../../shared/address.js';
import type { CallFrame, TxTrace } from '../../node/evm.js';
import { renderEvmInternalTxJson, type EvmInternalTxRow } from '../../wire/evm-internal-tx.js';

/**
 * Flattens one block's traces into rows in the order the stage numbers them: txs in block order,
 * each call tree depth-first pre-order (top frame index 0, parent -1), which is the reference's
 * numbering (docs/ingest.md §8.2: a child is numbered after its previous sibling's subtree).
 * A frame that reverted is kept. A tx the node cannot trace by design (a Cosmos tx that is not an
 * EVM tx; heights below 2) has no entry at all (docs/node-data.md §1.4), so an entry carrying a
 * tx-level `error` (tracer timeout, busy node) is a failed trace: it fails the height, retryably,
 * naming the height and tx. The reference skips such a tx (docs/ingest.md §8.2); we never skip
 * (docs/ingest.md §0.3).
 */
export function flattenBlockTraces(
  height: number,
  traces: readonly TxTrace[],
  prefix: string,
): EvmInternalTxRow[] {
  const rows: EvmInternalTxRow[] = [];
  for (const trace of traces) {
    if (trace.error || !trace.result) throw untraced(height, trace);
    const hash = Buffer.from(trace.txHash.slice(2), 'hex');
    const txHash = trace.txHash.toLowerCase();
    let next = 0;
    const walk = (frame: CallFrame, parentIndex: number): void => {
      const index = next++;
      rows.push(frameRow(frame, { height, hash, txHash, index, parentIndex, prefix }));
      for (const child of frame.calls ?? []) walk(child, index);
    };
    walk(trace.result, -1);
  }
  return rows;
}

function untraced(height: number, trace: TxTrace): AppError {
  const hash = trace.txHash.toLowerCase();
  if (!trace.error) {
    return new AppError('malformed_trace', `debug_traceBlockByNumber ${height}: tx ${hash} has no result`);
  }
  return new AppError(
    'trace_tx_failed',
    `debug_traceBlockByNumber ${height}: tx ${hash} was not traced: ${trace.error}`,
    { retryable: true },
  );
}

function frameRow(
  frame: CallFrame,
  at: {
    height: number;
    hash: Uint8Array;
    txHash: string;
    index: number;
    parentIndex: number;
    prefix: string;
  },
): EvmInternalTxRow {
  const from = frameAccount(frame.from, at);
  const to = frameAccount(frame.to, at);
  const accounts = [from, to].filter((a): a is Uint8Array => a !== undefined);
  if (from && to && Buffer.compare(from, to) === 0) accounts.pop();
  const data = renderEvmInternalTxJson(frame, {
    ...at,
    fromHex: from ? hexOf(from) : '',
    toHex: to ? hexOf(to) : '',
  });
  return {
    height: at.height,
    hash: at.hash,
    data,
    from,
    accounts,
    error: frame.error || undefined,
    revertReason: frame.revertReason || undefined,
  };
}

/** docs/ingest.md §6.1 normalisation; an address that does not normalise fails the whole height (docs/ingest.md §6.4). */
function frameAccount(
  address: string | undefined,
  at: { height: number; txHash: string; prefix: string },
): Uint8Array | undefined {
  if (address === undefined || address === '' || address === '0x') return undefined;
  try {
    return accountBytesFromString(address, at.prefix);
  } catch (err) {
    throw new AppError(
      'malformed_trace',
      `trace of ${at.txHash} at height ${at.height} has an invalid address "${address}"`,
      { cause: err },
    );
  }
}

const hexOf = (bytes: Uint8Array): string => '0x' + Buffer.from(bytes).toString('hex');
