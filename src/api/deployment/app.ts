import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { Logger } from '../../shared/logger.js';
import type { MetricsSource } from '../../shared/metrics.js';
import { createFastify, installJsonBodies } from '../app.js';
import { installCors } from '../cors.js';
import { GrpcCode, HttpError, installErrorHandlers } from '../errors.js';
import { installRequestEdge, installServerEdge } from '../http-edge.js';
import type { ApiSettings } from '../options.js';
import { registerLivePage } from '../routes/live-page.js';
import { registerSwaggerRoutes } from '../routes/swagger.js';
import { registerAccountRoutes } from './account-routes.js';
import { registerAccountStream } from './account-stream.js';
import { CHAINS_SCHEMAS, registerChainsRoute } from './chains-route.js';
import type { ChainDirectory } from './directory.js';

export interface DeploymentApiContext {
  directory: ChainDirectory;
  /** The deployment's API settings (limits, CORS); chain identity comes from each chain. */
  settings: Readonly<ApiSettings>;
  logger: Logger;
  metrics: MetricsSource;
  /** Ready once every chain serves and none is still catching up (a stalled one does not hold it back). */
  readiness: () => { ready: boolean; reason?: string };
  version: string;
  serverFactory?: FastifyServerFactory;
}

/**
 * The deployment's own routes (docs/chains.md §2): `/chains`, the deployment-wide `/health`,
 * `/ready` and `/metrics`, its OpenAPI, and the answers for a chain that is not configured or not
 * serving yet. Every chain's own routes are its single-chain API, reached through dispatch.ts.
 */
export async function createDeploymentApp(ctx: DeploymentApiContext): Promise<FastifyInstance> {
  const app = createFastify(ctx.settings.limits, ctx.serverFactory);
  installServerEdge(app);
  installRequestEdge(app, ctx.settings.limits);
  installJsonBodies(app);
  installErrorHandlers(app, ctx.logger, (_request, path) => rootMiss(ctx.directory, path));
  installCors(app, ctx.settings.cors);
  for (const schema of CHAINS_SCHEMAS) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'rollup-indexer deployment API',
        description: `Every chain's API is under /chains/{chain_id} (its own /swagger/doc.json there)`,
        version: ctx.version,
      },
      tags: [{ name: 'Chains' }, { name: 'App' }],
    },
    refResolver: {
      buildLocalReference: (json, _b, _f, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  registerChainsRoute(app, ctx.directory);
  registerAccountRoutes(app, ctx.directory, ctx.settings);
  registerAccountStream(app, ctx);
  registerDeploymentSystemRoutes(app, ctx);
  registerChainMisses(app, ctx.directory);
  // With a root chain, `/` is that chain's own live page (dispatch.ts); the set of chains may
  // change while the process runs (docs/chains.md §6), so the deployment's page is always here.
  registerLivePage(app, 'chains.html');
  registerSwaggerRoutes(app);
  return app;
}

function registerDeploymentSystemRoutes(app: FastifyInstance, ctx: DeploymentApiContext): void {
  const hidden = { schema: { tags: ['App'] } };
  app.get('/health', hidden, async (_request, reply) => {
    void reply.header('content-type', 'application/json');
    return '{"status":"ok"}';
  });
  app.get('/ready', hidden, async (_request, reply) => {
    const check = ctx.readiness();
    if (!check.ready)
      throw new HttpError(503, GrpcCode.unavailable, check.reason ?? 'not ready', 'not_ready');
    void reply.header('content-type', 'application/json');
    return '{"status":"ready"}';
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('content-type', ctx.metrics.contentType);
    return ctx.metrics.metrics();
  });
}

/**
 * A chain id that is not configured: 404 naming it. A configured chain whose API is not up yet
 * (its database or node has not told its VM): 503 with what it waits for. A root route when
 * several chains are served and none is the default: 404 naming `/chains`.
 */
function registerChainMisses(app: FastifyInstance, directory: ChainDirectory): void {
  const miss = async (request: { params: unknown }) => {
    const chainId = (request.params as { chain_id: string }).chain_id;
    const chain = directory.get(chainId);
    if (!chain)
      throw new HttpError(
        404,
        GrpcCode.notFound,
        `unknown chain id "${chainId}": GET /chains lists this deployment's chains`,
        'chain_not_found',
      );
    const why = chain.condition().lastError?.message ?? 'starting';
    throw new HttpError(
      503,
      GrpcCode.unavailable,
      `chain ${chainId} is not serving yet: ${why}`,
      'chain_not_serving',
    );
  };
  app.all('/chains/:chain_id', { schema: { hide: true } }, miss);
  app.all('/chains/:chain_id/*', { schema: { hide: true } }, miss);
}

/** A root route of no chain: the root chain is not serving yet, or there is no root chain. */
function rootMiss(directory: ChainDirectory, path: string): HttpError {
  const root = directory.rootChain;
  if (root)
    return new HttpError(
      503,
      GrpcCode.unavailable,
      `chain ${root.chainId} is not serving yet`,
      'chain_not_serving',
    );
  return new HttpError(
    404,
    GrpcCode.notFound,
    `this deployment serves ${directory.chains.length} chains: use /chains/{chain_id}${path} (GET /chains lists them)`,
    'chain_not_chosen',
  );
}
