import type { EvmClient } from '../../node/evm.js';
import { INGEST_RETRY, withRetry, type RetryPolicy } from '../../node/retry.js';
import type { NodeWaits } from '../../shared/node-waits.js';
import type { Db } from '../../store/driver/db.js';
import { createInternalTxWriter } from '../../store/writers/internal-tx-writer.js';
import type { EvmInternalTxRow } from '../../wire/evm-internal-tx.js';
import { flattenBlockTraces } from '../collect/internal-txs.js';
import type { Derivation } from './derivation.js';

/** Heights per debug_traceBlockByNumber batch: traces are large, so batches stay small. */
const TRACES_PER_REQUEST = 4;

/**
 * EVM internal txs (docs/ingest.md §8.2): every height holding EVM txs is traced with the
 * callTracer, and its frames are stored under the stream's own gapless sequence. Heights without
 * EVM txs, and those below 2 (the node cannot trace genesis), have nothing to trace.
 */
export function createInternalTxDerivation(ctx: {
  db: Db;
  evm: EvmClient;
  accountPrefix: string;
  /** Backoff of each trace request, without an attempt budget (default INGEST_RETRY). */
  retry?: RetryPolicy | undefined;
  /** Where a trace waiting for the node says so (`/status`'s `waiting`). */
  waits?: NodeWaits | undefined;
}): Derivation<EvmInternalTxRow[]> {
  const writer = createInternalTxWriter();
  const policy = ctx.retry ?? INGEST_RETRY;
  const report = ctx.waits && { waits: ctx.waits, part: 'internal_tx stage' };
  return {
    name: 'internal_tx',
    async fetch(from, to, signal) {
      const { rows } = await ctx.db.query<{ height: number }>(
        'SELECT DISTINCT height FROM evm_tx WHERE height BETWEEN $1 AND $2 AND height >= 2 ORDER BY height',
        [from, to],
      );
      const heights = rows.map((r) => r.height);
      // Node trouble is waited out (docs/ingest.md §10); once one request fails for good (an error
      // no retry fixes) the batch is lost: the others stop retrying.
      const failed = new AbortController();
      const retrySignal = AbortSignal.any([signal, failed.signal]);
      const requests: Promise<EvmInternalTxRow[]>[] = [];
      for (let i = 0; i < heights.length; i += TRACES_PER_REQUEST) {
        const group = heights.slice(i, i + TRACES_PER_REQUEST);
        // Each request is retried on its own, a tx the node failed to trace included: one flaky
        // answer does not redo the batch.
        const traced = withRetry(
          async () => {
            const traces = await ctx.evm.traceBlocks(group);
            return traces.flatMap((t, j) => flattenBlockTraces(group[j]!, t, ctx.accountPrefix));
          },
          { policy, what: `debug_traceBlockByNumber ${group.join(',')}`, signal: retrySignal, report },
        );
        requests.push(
          traced.catch((err: unknown) => {
            failed.abort();
            throw err;
          }),
        );
      }
      return (await Promise.all(requests)).flat();
    },
    async write(tx, rows, at) {
      const sequence = await writer.write(tx, rows, at.sequence);
      return { sequence, rows: rows.length };
    },
    committed: () => writer.committed(),
    rolledBack: () => writer.rolledBack(),
  };
}
