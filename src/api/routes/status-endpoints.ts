import type { FastifyInstance } from 'fastify';
import type { NodeEndpointReport } from '../../shared/node-endpoint.js';
import { jsonRoute, type RouteDeps } from './define.js';

export type NodeEndpointsSource = () => NodeEndpointReport;

/**
 * GET /status/endpoints (docs/api.md §4.11): every node endpoint of the ingest running in this
 * process, the main thread's pools and each prepare worker's. A route of its own, so `/status` answers as before; served only where ingest runs
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
    handler: async () => {
      const report = endpoints();
      return JSON.stringify({ endpoints: report.endpoints, prepare_workers: report.prepare_workers });
    },
  });
}
