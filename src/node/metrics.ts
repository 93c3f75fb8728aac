import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * Why a request goes to the node: what it asks for, named by its consumer where two consumers ask
 * for the same thing (the block stream's `block` against the rich-list stage's `rich_list_block`).
 */
export type NodePurpose =
  | 'status'
  | 'block'
  | 'block_results'
  | 'rich_list_block'
  | 'rich_list_block_results'
  | 'receipts'
  | 'trace'
  | 'tx_fallback'
  | 'validator'
  | 'node_info'
  | 'accounts'
  | 'module_accounts'
  | 'balance'
  | 'supply'
  | 'denom_lookup'
  | 'fa_metadata'
  | 'nft_lookup'
  | 'other';

export interface NodeMetrics {
  latency: Histogram<'surface'>;
  errors: Counter<'surface' | 'kind'>;
  /** HTTP requests (retries included), by surface and purpose. */
  requests: Counter<'surface' | 'purpose'>;
  /** Queries those requests carry (each call of a JSON-RPC batch; one per REST request). */
  calls: Counter<'surface' | 'purpose'>;
}

/**
 * What a transport records into: the registry's metrics, or (in a prepare worker) a recorder whose
 * counts are forwarded to the main thread's registry.
 */
export interface NodeMetricsSink {
  latency: { startTimer(labels: { surface: string }): () => unknown };
  errors: { inc(labels: { surface: string; kind: string }, value?: number): void };
  requests: { inc(labels: { surface: string; purpose: string }, value?: number): void };
  calls: { inc(labels: { surface: string; purpose: string }, value?: number): void };
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
    requests: new Counter({
      name: 'rollup_indexer_node_requests_total',
      help: 'HTTP requests to the rollup node (retries included), by surface and purpose',
      labelNames: ['surface', 'purpose'],
      registers: [registry],
    }),
    calls: new Counter({
      name: 'rollup_indexer_node_calls_total',
      help: 'Queries sent to the rollup node (each call of a JSON-RPC batch counts), by surface and purpose',
      labelNames: ['surface', 'purpose'],
      registers: [registry],
    }),
  };
}

/** Counts per `surface/purpose` read from the counters (for benchmarks and tests). */
export async function nodeRequestCounts(
  metrics: NodeMetrics,
): Promise<{ requests: Record<string, number>; calls: Record<string, number> }> {
  const read = async (counter: Counter<'surface' | 'purpose'>) => {
    const out: Record<string, number> = {};
    for (const v of (await counter.get()).values) {
      out[`${v.labels.surface}/${v.labels.purpose}`] = v.value;
    }
    return out;
  };
  return { requests: await read(metrics.requests), calls: await read(metrics.calls) };
}
