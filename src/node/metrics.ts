import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registeredMetric } from '../shared/metrics.js';
import type { NodeEndpointReport, NodeEndpointView } from '../shared/node-endpoint.js';

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

/**
 * The node's metrics on `registry`, registered the first time: a deployment's chain builds a new
 * ingest service on its own registry each time it restarts after a failure (docs/chains.md §5),
 * and keeps counting into the same series.
 */
export function createNodeMetrics(registry: Registry): NodeMetrics {
  const counter = (name: string, help: string, labelNames: string[]) =>
    registeredMetric(registry, name, () => new Counter({ name, help, labelNames, registers: [registry] }));
  return {
    latency: registeredMetric(
      registry,
      'rollup_indexer_node_request_seconds',
      () =>
        new Histogram({
          name: 'rollup_indexer_node_request_seconds',
          help: 'Latency of requests to the rollup node, by surface (rpc, rest, jsonrpc)',
          labelNames: ['surface'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers: [registry],
        }),
    ),
    errors: counter(
      'rollup_indexer_node_request_errors_total',
      'Failed requests to the rollup node, by surface and kind',
      ['surface', 'kind'],
    ) as Counter<'surface' | 'kind'>,
    requests: counter(
      'rollup_indexer_node_requests_total',
      'HTTP requests to the rollup node (retries included), by surface and purpose',
      ['surface', 'purpose'],
    ) as Counter<'surface' | 'purpose'>,
    calls: counter(
      'rollup_indexer_node_calls_total',
      'Queries sent to the rollup node (each call of a JSON-RPC batch counts), by surface and purpose',
      ['surface', 'purpose'],
    ) as Counter<'surface' | 'purpose'>,
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

const ENDPOINT_HEIGHT = 'rollup_indexer_node_endpoint_height';
const ENDPOINT_UP = 'rollup_indexer_node_endpoint_up';

/**
 * Each node endpoint's heights and health as gauges read at scrape time (docs/api.md §4.11):
 * `…_height{bound="lowest"|"highest"|"lag"}` and `…_up` (1 healthy, 0 down or of another chain),
 * the main thread's pools without a `worker` label, each prepare worker's own with `worker="N"`.
 * A second ingest service on the same registry takes the gauges over.
 */
export function registerEndpointMetrics(registry: Registry, report: () => NodeEndpointReport): void {
  for (const name of [ENDPOINT_HEIGHT, ENDPOINT_UP]) registry.removeSingleMetric(name);
  /** Every endpoint of the report, each with the labels that name it. */
  const labelled = () => {
    const { endpoints, prepare_workers } = report();
    const named = (ep: NodeEndpointView, worker?: number) => ({
      ep,
      labels: {
        surface: ep.surface,
        endpoint: ep.url,
        ...(worker === undefined ? {} : { worker: String(worker) }),
      },
    });
    return [
      ...endpoints.map((ep) => named(ep)),
      ...prepare_workers.flatMap((w) => w.endpoints.map((ep) => named(ep, w.worker))),
    ];
  };
  new Gauge({
    name: ENDPOINT_HEIGHT,
    help: 'Heights of each node endpoint: lowest and highest it serves, and blocks behind the freshest',
    labelNames: ['surface', 'endpoint', 'worker', 'bound'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { ep, labels } of labelled()) {
        if (ep.lowest_height !== null) this.set({ ...labels, bound: 'lowest' }, ep.lowest_height);
        if (ep.highest_height !== null) this.set({ ...labels, bound: 'highest' }, ep.highest_height);
        this.set({ ...labels, bound: 'lag' }, ep.lag_blocks);
      }
    },
  });
  new Gauge({
    name: ENDPOINT_UP,
    help: 'Whether a node endpoint is used: 1 healthy, 0 down or serving another chain (label health, chain_id)',
    labelNames: ['surface', 'endpoint', 'worker', 'health', 'chain_id'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { ep, labels } of labelled()) {
        this.set(
          { ...labels, health: ep.health, chain_id: ep.chain_id ?? '' },
          ep.health === 'healthy' ? 1 : 0,
        );
      }
    },
  });
}
