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
