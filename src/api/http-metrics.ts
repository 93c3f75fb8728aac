import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { BlockReader } from '../store/readers/blocks.js';
import type { HealthReader } from '../store/readers/health.js';
import type { RowCacheObserver } from '../store/readers/row-cache.js';
import { registeredMetric } from '../shared/metrics.js';

/** Request count and latency per route template and status class, on the process registry. */
export function installHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const requestsName = 'rollup_indexer_http_requests_total';
  const requests = registeredMetric(
    registry,
    requestsName,
    () =>
      new Counter({
        name: requestsName,
        help: 'HTTP requests answered by the API',
        labelNames: ['method', 'route', 'status_class'],
        registers: [registry],
      }),
  );
  const durationName = 'rollup_indexer_http_request_duration_seconds';
  const duration = registeredMetric(
    registry,
    durationName,
    () =>
      new Histogram({
        name: durationName,
        help: 'API request latency',
        labelNames: ['method', 'route'],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
  );
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
    requests.inc({ method: request.method, route, status_class: statusClass });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}

/**
 * Requests the optional protections turned away, by reason: `rate_limit` (429),
 * `expensive_cap` (an offset scan answered 503 or a count reported "-1").
 */
export function refusalCounter(registry: Registry): (reason: 'rate_limit' | 'expensive_cap') => void {
  const name = 'rollup_indexer_api_refused_total';
  const counter = registeredMetric(
    registry,
    name,
    () =>
      new Counter({
        name,
        help: 'Requests or queries refused by API_RATE_LIMIT or API_MAX_EXPENSIVE_QUERIES',
        labelNames: ['reason'],
        registers: [registry],
      }),
  );
  return (reason) => counter.inc({ reason });
}

/**
 * `rollup_indexer_api_replica_lag_seconds`, read from the database at each scrape: how far the
 * replica this API reads (`DATABASE_READ_URL`) is behind its primary; 0 on a primary.
 */
export function installReplicaLagMetric(registry: Registry, health: HealthReader): void {
  installScrapedGauge(registry, {
    name: 'rollup_indexer_api_replica_lag_seconds',
    help: 'Replay lag of the read replica the API reads (0 on a primary)',
    read: async () => (await health.replicaLagSeconds().catch(() => undefined)) ?? 0,
  });
}

/**
 * `rollup_indexer_undecoded_txs`, read from the database at each scrape: txs stored undecoded
 * (docs/api.md §14), which a release knowing their types re-renders.
 */
export function installUndecodedTxsMetric(registry: Registry, blocks: BlockReader): void {
  installScrapedGauge(registry, {
    name: 'rollup_indexer_undecoded_txs',
    help: 'Txs stored undecoded: no decoder of this release nor the node could render them',
    read: () => blocks.undecodedTxs().catch(() => undefined),
  });
}

/** A gauge read from the database at each scrape, once per registry; a failed read keeps the last value. */
function installScrapedGauge(
  registry: Registry,
  gauge: { name: string; help: string; read: () => Promise<number | undefined> },
): void {
  if (registry.getSingleMetric(gauge.name)) return;
  new Gauge({
    name: gauge.name,
    help: gauge.help,
    registers: [registry],
    async collect() {
      const value = await gauge.read();
      if (value !== undefined) this.set(value);
    },
  });
}

/**
 * The stored-row cache (API_ROW_CACHE_MB): rows found and fetched per table, drops on a store
 * identity change, and the bytes held (read at each scrape).
 */
export function rowCacheMetrics(registry: Registry, bytes: () => number): RowCacheObserver {
  const rowsName = 'rollup_indexer_api_row_cache_rows_total';
  const lookups = registeredMetric(
    registry,
    rowsName,
    () =>
      new Counter({
        name: rowsName,
        help: 'Stored rows a list page asked the row cache for, by table and result (hit, miss)',
        labelNames: ['table', 'result'],
        registers: [registry],
      }),
  );
  const dropsName = 'rollup_indexer_api_row_cache_drops_total';
  const drops = registeredMetric(
    registry,
    dropsName,
    () =>
      new Counter({
        name: dropsName,
        help: 'Times the row cache dropped every row: the store was reset, re-ingested or migrated',
        registers: [registry],
      }),
  );
  const bytesName = 'rollup_indexer_api_row_cache_bytes';
  registeredMetric(
    registry,
    bytesName,
    () =>
      new Gauge({
        name: bytesName,
        help: 'Bytes the row cache holds (rows and a per-row estimate of their overhead)',
        registers: [registry],
        collect() {
          this.set(bytes());
        },
      }),
  );
  return {
    looked(table, hits, misses) {
      if (hits > 0) lookups.inc({ table, result: 'hit' }, hits);
      if (misses > 0) lookups.inc({ table, result: 'miss' }, misses);
    },
    dropped: () => drops.inc(),
  };
}
