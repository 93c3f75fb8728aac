import type { FastifyInstance } from 'fastify';
import { HttpError, GrpcCode } from '../errors.js';
import { errorResponses, ref } from '../schemas.js';
import { jsonRoute, type RouteDeps } from './define.js';

/** GET /status (spec §4.1): build info, chain id and the newest indexed height. */
export function registerStatusRoutes(app: FastifyInstance, deps: RouteDeps): void {
  jsonRoute(app, deps, {
    url: '/status',
    ttlSeconds: 1,
    schema: {
      tags: ['App'],
      summary: 'Indexer status',
      response: { 200: ref('status.StatusResponse'), ...errorResponses },
    },
    async handler() {
      const height = await deps.readers.blocks.latestHeight();
      // Nothing indexed yet: a transient state, answered like an outage rather than a crash.
      if (height === undefined)
        throw new HttpError(503, GrpcCode.unavailable, 'Service Unavailable', 'no_blocks');
      // Optional fields (internal_tx_height, rich_list_height, cleanup progress) join here when
      // their extensions exist; they are omitted while zero, like the reference.
      return JSON.stringify({
        version: deps.options.version,
        commit_hash: deps.options.commit,
        chain_id: deps.options.chainId,
        height,
      });
    },
  });
}
