import type { FastifyInstance } from 'fastify';
import { HttpError, GrpcCode } from '../errors.js';
import { errorResponses, ref } from '../schemas.js';
import { servedWaits, type NodeWaits } from '../../shared/node-waits.js';
import { jsonRoute, type RouteDeps } from './define.js';

/**
 * GET /status (docs/api.md §4.1): build info, chain id, the newest indexed height and each stage's
 * height; with the ingest of the same process, what waits for the node (docs/api.md §4.1.1).
 */
export function registerStatusRoutes(app: FastifyInstance, deps: RouteDeps, waits?: NodeWaits): void {
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
        waiting: waitingNow(waits),
      });
    },
  });
}

/** The parts waiting for the node, served; undefined (left out) while none waits (docs/api.md §4.1.1). */
export function waitingNow(waits: NodeWaits | undefined) {
  const now = waits?.list() ?? [];
  return now.length > 0 ? servedWaits(now) : undefined;
}
