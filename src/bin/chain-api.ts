import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { RequestHandler } from '../api/deployment/directory.js';
import type { StreamSource } from '../api/stream/source.js';
import type { ReadinessCheck } from '../api/routes/system.js';
import type { NodeEndpointsSource } from '../api/routes/status-endpoints.js';
import { withChainIdentity, type ApiSettings } from '../api/options.js';
import type { CommitFeed } from '../shared/commit-feed.js';
import type { Logger } from '../shared/logger.js';
import type { Registry } from '../shared/metrics.js';
import type { NodeWaits } from '../shared/node-waits.js';
import type { Db } from '../store/driver/db.js';
import type { ChainMeta } from '../store/readers/chain-meta.js';

/**
 * One chain's single-chain API inside a deployment (docs/chains.md §2): the very app a
 * single-chain process serves, on a server that never listens — the deployment's port hands it
 * the requests under `/chains/{chain_id}`.
 */
export async function createChainApi(ctx: {
  settings: Readonly<ApiSettings>;
  meta: ChainMeta;
  db: Db;
  logger: Logger;
  registry: Registry;
  readiness: ReadinessCheck;
  waits?: NodeWaits;
  nodeEndpoints?: NodeEndpointsSource;
  commitFeed?: CommitFeed;
  /** Told of the app's stream hub and readers (the deployment's account stream follows them). */
  onStreams?: (source: StreamSource) => void;
}): Promise<{ app: FastifyInstance; handler: RequestHandler }> {
  const options = withChainIdentity(
    { ...ctx.settings, chainId: ctx.meta.chainId, vmType: ctx.meta.vmType },
    ctx.meta,
  );
  // Loaded here: `indexer` serves no API and need not load it (see cli.ts).
  const { createApiApp } = await import('../api/app.js');
  let handler: RequestHandler | undefined;
  const app = await createApiApp({
    options,
    db: ctx.db,
    logger: ctx.logger,
    metrics: ctx.registry,
    serverFactory: (h) => ((handler = h), http.createServer()),
    readiness: ctx.readiness,
    ...(ctx.waits ? { nodeWaits: ctx.waits } : {}),
    ...(ctx.nodeEndpoints ? { nodeEndpoints: ctx.nodeEndpoints } : {}),
    ...(ctx.commitFeed ? { commitFeed: ctx.commitFeed } : {}),
    ...(ctx.onStreams ? { onStreams: ctx.onStreams } : {}),
  });
  await app.ready();
  return { app, handler: handler! };
}
