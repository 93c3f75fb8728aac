import type { EvmClient } from '../../node/evm.js';
import { INGEST_RETRY, withRetry } from '../../node/retry.js';
import type { Db } from '../../store/db.js';
import { createInternalTxWriter } from '../../store/writers/internal-tx-writer.js';
import { flattenBlockTraces, type InternalTxRow } from '../collectors/internal-txs.js';
import type { Stage } from './stage.js';

/** Heights per debug_traceBlockByNumber batch: traces are large, so batches stay small. */
const TRACES_PER_REQUEST = 4;

/**
 * EVM internal txs (spec/indexer.md §8.2): every height holding EVM txs is traced with the
 * callTracer, and its frames are stored under the stream's own gapless sequence. Heights without
 * EVM txs, and those below 2 (the node cannot trace genesis), have nothing to trace.
 */
export function createInternalTxStage(ctx: {
  db: Db;
  evm: EvmClient;
  accountPrefix: string;
}): Stage<InternalTxRow[]> {
  const writer = createInternalTxWriter();
  return {
    name: 'internal_tx',
    async fetch(from, to, signal) {
      const { rows } = await ctx.db.query<{ height: number }>(
        'SELECT DISTINCT height FROM evm_tx WHERE height BETWEEN $1 AND $2 AND height >= 2 ORDER BY height',
        [from, to],
      );
      const heights = rows.map((r) => r.height);
      const requests: Promise<InternalTxRow[]>[] = [];
      for (let i = 0; i < heights.length; i += TRACES_PER_REQUEST) {
        const group = heights.slice(i, i + TRACES_PER_REQUEST);
        // Each request is retried on its own: one flaky answer does not redo the batch.
        const traced = withRetry(() => ctx.evm.traceBlocks(group), {
          policy: { ...INGEST_RETRY, maxAttempts: 10 },
          what: `debug_traceBlockByNumber ${group.join(',')}`,
          signal,
        });
        requests.push(
          traced.then((traces) =>
            traces.flatMap((t, j) => flattenBlockTraces(group[j]!, t, ctx.accountPrefix)),
          ),
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
