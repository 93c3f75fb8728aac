import { openNodeRows, type NodeRows } from '../../src/ingest/repair/node-rows.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import type { SimulatorUrls } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';

/** The node rows `verify` and `reindex` read, from one simulator's surfaces (docs/ingest.md §11). */
export function openTestNodeRows(db: Db, urls: SimulatorUrls): Promise<NodeRows> {
  return openNodeRows(
    db,
    {
      endpoints: { rpc: [urls.rpc], rest: [urls.rest], jsonRpc: urls.jsonRpc ? [urls.jsonRpc] : [] },
      accountPrefix: 'init',
      maxConcurrentRequests: 8,
      requestTimeoutMs: 5_000,
    },
    createMetricsRegistry({ defaultMetrics: false }),
  );
}
