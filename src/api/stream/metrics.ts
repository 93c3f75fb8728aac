import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registeredMetric } from '../../shared/metrics.js';
import type { StreamRoute } from './subscriber.js';

/** What /metrics shows of the live streams (docs/stream.md §3). */
export interface StreamMetrics {
  opened(route: StreamRoute): void;
  closed(route: StreamRoute): void;
  /** Commit → write latency of one chunk handed to subscribers. */
  delivered(route: StreamRoute, latencyMs: number): void;
  sent(route: StreamRoute, events: number): void;
  slowClose(route: StreamRoute): void;
  replayed(route: StreamRoute, items: number): void;
  /** A read of the hub's failed (it is retried: docs/stream.md §4.1). */
  readFailed(): void;
}

export function createStreamMetrics(registry: Registry): StreamMetrics {
  const metric = <M>(name: string, make: () => M): M => registeredMetric(registry, name, make);
  const open = metric(
    'rollup_indexer_stream_subscribers',
    () =>
      new Gauge({
        name: 'rollup_indexer_stream_subscribers',
        help: 'Open streams',
        labelNames: ['route'],
        registers: [registry],
      }),
  );
  const events = metric(
    'rollup_indexer_stream_events_total',
    () =>
      new Counter({
        name: 'rollup_indexer_stream_events_total',
        help: 'Events written to subscribers',
        labelNames: ['route'],
        registers: [registry],
      }),
  );
  const slow = metric(
    'rollup_indexer_stream_slow_closes_total',
    () =>
      new Counter({
        name: 'rollup_indexer_stream_slow_closes_total',
        help: 'Subscribers closed for falling behind their send buffer',
        labelNames: ['route'],
        registers: [registry],
      }),
  );
  const replay = metric(
    'rollup_indexer_stream_replay_items',
    () =>
      new Histogram({
        name: 'rollup_indexer_stream_replay_items',
        help: 'Stored items replayed to a resuming subscriber',
        labelNames: ['route'],
        buckets: [0, 1, 10, 100, 1000, 10_000],
        registers: [registry],
      }),
  );
  const latency = metric(
    'rollup_indexer_stream_delivery_seconds',
    () =>
      new Histogram({
        name: 'rollup_indexer_stream_delivery_seconds',
        help: 'From the commit (checkpoint update) to the events being written to subscribers',
        labelNames: ['route'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
  );
  const readFailures = metric(
    'rollup_indexer_stream_read_failures_total',
    () =>
      new Counter({
        name: 'rollup_indexer_stream_read_failures_total',
        help: "Failed reads of the streams' hub (each retried from the same position)",
        registers: [registry],
      }),
  );
  return {
    opened: (route) => open.inc({ route }),
    closed: (route) => open.dec({ route }),
    delivered: (route, latencyMs) => latency.observe({ route }, Math.max(0, latencyMs) / 1000),
    sent: (route, n) => events.inc({ route }, n),
    slowClose: (route) => slow.inc({ route }),
    replayed: (route, items) => replay.observe({ route }, items),
    readFailed: () => readFailures.inc(),
  };
}
