import type { FastifyInstance } from 'fastify';
import { jsonRoute, type RouteDeps } from './define.js';

/** One node endpoint as the ingest process running beside the API sees it (docs/api.md §4.11). */
export interface NodeEndpointJson {
  surface: string;
  url: string;
  health: string;
  chain_id: string | null;
  lowest_height: number | null;
  highest_height: number | null;
  lag_blocks: number;
  requests: number;
  error?: string;
}

export type NodeEndpointsSource = () => readonly NodeEndpointJson[];

/**
 * GET /status/endpoints (docs/api.md §4.11): every node endpoint of the ingest running in this
 * process. A route of its own, so `/status` answers as before; served only where ingest runs
 * (`start`, `demo`), and kept out of the OpenAPI document like `/metrics`.
 */
export function registerStatusEndpointsRoute(
  app: FastifyInstance,
  deps: RouteDeps,
  endpoints: NodeEndpointsSource,
): void {
  jsonRoute(app, deps, {
    url: '/status/endpoints',
    schema: { hide: true },
    handler: async () => JSON.stringify({ endpoints: endpoints() }),
  });
}
