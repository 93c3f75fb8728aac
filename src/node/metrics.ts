import { Counter, Histogram, type Registry } from 'prom-client';

export interface NodeMetrics {
  latency: Histogram<'surface'>;
  errors: Counter<'surface' | 'kind'>;
}

export function createNodeMetrics(registry: Registry): NodeMetrics {
  return {
    latency: new Histogram({
      name: 'rollup_indexer_node_request_seconds',
      help: 'Latency of requests to the rollup node, by surface (rpc, rest, jsonrpc)',
      labelNames: ['surface'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'rollup_indexer_node_request_errors_total',
      help: 'Failed requests to the rollup node, by surface and kind',
      labelNames: ['surface', 'kind'],
      registers: [registry],
    }),
  };
}
