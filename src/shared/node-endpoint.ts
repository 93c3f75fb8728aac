/**
 * A node endpoint as the ingest process shows it on `/status/endpoints` and `/metrics`
 * (docs/api.md §4.11): written by src/node's endpoint pool, served by src/api, keys in this order.
 */
export interface NodeEndpointView {
  surface: string;
  url: string;
  health: 'unprobed' | 'healthy' | 'down' | 'wrong_chain';
  chain_id: string | null;
  lowest_height: number | null;
  highest_height: number | null;
  lag_blocks: number;
  requests: number;
  error?: string;
}

/** One prepare worker's pools (docs/api.md §4.11): its own endpoints, as of its last answered chunk. */
export interface PrepareWorkerEndpoints {
  /** 1-based. */
  worker: number;
  endpoints: NodeEndpointView[];
}

/** `/status/endpoints`: the main thread's pools, then each prepare worker's (none when prepare runs in-thread). */
export interface NodeEndpointReport {
  endpoints: NodeEndpointView[];
  prepare_workers: PrepareWorkerEndpoints[];
}
