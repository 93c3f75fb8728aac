import type { FastifyInstance } from 'fastify';
import { HttpError, GrpcCode } from '../errors.js';
import { errorResponses, ref } from '../schemas.js';
import { jsonRoute, type RouteDeps } from './define.js';

/** GET /status (docs/api.md §4.1): build info, chain id, the newest indexed height and each stage's height. */
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
      const heights = await deps.readers.blocks.statusHeights();
      // Nothing indexed yet: a transient state, answered like an outage rather than a crash.
      if (heights === undefined)
        throw new HttpError(503, GrpcCode.unavailable, 'Service Unavailable', 'no_blocks');
      // A stage's height is shown where the stage has run, and omitted while 0 (the reference's
      // omitempty).
      return JSON.stringify({
        version: deps.options.version,
        commit_hash: deps.options.commit,
        chain_id: deps.options.chainId,
        height: heights.height,
        internal_tx_height: heights.internalTxHeight || undefined,
        rich_list_height: heights.richListHeight || undefined,
        // docs/api.md §14: shown only while some tx is stored undecoded.
        undecoded_txs: heights.undecodedTxs || undefined,
      });
    },
  });
}
