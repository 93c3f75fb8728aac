import http from 'node:http';
import zlib from 'node:zlib';
import { AjvCompiler } from '@fastify/ajv-compiler';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerFactory,
} from 'fastify';
import type { Registry } from 'prom-client';
import { createPollFeed, type CommitFeed } from '../shared/commit-feed.js';
import type { Logger } from '../shared/logger.js';
import type { Db } from '../store/driver/db.js';
import { createBlockReader } from '../store/readers/blocks.js';
import { createTotalsCache } from '../store/readers/context.js';
import { createDictReader } from '../store/readers/dicts.js';
import { createEvmTxReader } from '../store/readers/evm-txs.js';
import { createEvmInternalTxReader } from '../store/readers/evm-internal-txs.js';
import { createRichListReader } from '../store/readers/rich-list.js';
import { createRowCache, type RowCache } from '../store/readers/row-cache.js';
import { createNftPages } from '../store/readers/nft-pages.js';
import {
  createStoreWatch,
  readStoreIdentity,
  STORE_CHECK_MS,
  type StoreWatch,
} from '../store/readers/store-watch.js';
import { createStreamReader } from '../store/readers/stream.js';
import { createHealthReader } from '../store/readers/health.js';
import { createNftCollectionReader } from '../store/readers/nft-collections.js';
import { createNftTokenReader } from '../store/readers/nft-tokens.js';
import { createTxReader } from '../store/readers/txs.js';
import { createWorkLimiter } from '../store/readers/work-limiter.js';
import { guardTextParams } from '../store/driver/text-params.js';
import { createBodyPool } from './body-pool.js';
import { createResponseCache } from './cache.js';
import { installCors } from './cors.js';
import { installErrorHandlers } from './errors.js';
import {
  createClientErrorHandler,
  edgeServerOptions,
  installRequestEdge,
  installServerEdge,
} from './http-edge.js';
import {
  installHttpMetrics,
  installReplicaLagMetric,
  installUndecodedTxsMetric,
  refusalCounter,
  rowCacheMetrics,
} from './http-metrics.js';
import type { ApiOptions } from './options.js';
import { malformedParameterError } from './params.js';
import { parseQueryString } from './params.js';
import { installRateLimit } from './rate-limit.js';
import { registerBlockRoutes } from './routes/blocks.js';
import type { RouteDeps } from './routes/define.js';
import { registerEvmTxRoutes } from './routes/evm-txs.js';
import { registerEvmInternalTxRoutes } from './routes/evm-internal-txs.js';
import { registerRichListRoutes } from './routes/rich-list.js';
import { registerNftRoutes } from './routes/nfts.js';
import { registerStatusRoutes } from './routes/status.js';
import type { NodeWaits } from '../shared/node-waits.js';
import { registerSwaggerRoutes } from './routes/swagger.js';
import { registerSystemRoutes, type ReadinessCheck } from './routes/system.js';
import { registerLivePage } from './routes/live-page.js';
import { registerStreamRoutes } from './routes/stream.js';
import { registerTxRoutes } from './routes/txs.js';
import { createStreamHub } from './stream/hub.js';
import { createStreamMetrics } from './stream/metrics.js';
import type { StreamSource } from './stream/source.js';
import { registerUnavailableRoutes } from './routes/unavailable.js';
import { registerStatusEndpointsRoute, type NodeEndpointsSource } from './routes/status-endpoints.js';
import { EVM_SCHEMAS, SHARED_SCHEMAS } from './schemas.js';

export interface ApiContext {
  options: ApiOptions;
  /** A read-only session (createPostgresDb({ readOnly: true, statementTimeoutMs })) or PGlite. */
  db: Db;
  logger: Logger;
  metrics: Registry;
  /** Extra readiness condition, e.g. from an ingest pipeline running in the same process. */
  readiness?: ReadinessCheck;
  /** What the ingest of the same process waits for on the node (`start`); absent for `api` alone. */
  nodeWaits?: NodeWaits;
  /** The node endpoints of an ingest running in the same process (`/status/endpoints`). */
  nodeEndpoints?: NodeEndpointsSource;
  /** Serve on a server the caller already listens on (the ingest process opens its port first). */
  serverFactory?: FastifyServerFactory;
  /**
   * How the live streams learn of commits: in-process (`start`), LISTEN (`api` on the primary);
   * by default a short poll of the checkpoint, which also suits a replica.
   */
  commitFeed?: CommitFeed;
  /** Told the app's stream hub and readers once built (a deployment follows each chain's). */
  onStreams?: (source: StreamSource) => void;
}

/** Free page memory kept for reuse: enough for the pages of ~50 concurrent requests. */
const BODY_POOL_BYTES = 64 * 1024 * 1024;

function createApiRowCache(watch: StoreWatch, maxBytes: number, metrics: Registry): RowCache {
  const cache: RowCache = createRowCache({
    maxBytes,
    watch,
    observer: rowCacheMetrics(metrics, () => cache.bytes()),
  });
  return cache;
}

/** Builds the read API (routes, schemas, OpenAPI, cache, CORS, compression); the caller listens. */
export async function createApiApp(ctx: ApiContext): Promise<FastifyInstance> {
  const { options } = ctx;
  const app = createFastify(options.limits, ctx.serverFactory);
  installServerEdge(app);
  installRequestEdge(app, options.limits);
  const refused = refusalCounter(ctx.metrics);
  if (options.limits.rateLimitPerSecond > 0) {
    installRateLimit(app, {
      perSecond: options.limits.rateLimitPerSecond,
      burst: options.limits.rateLimitBurst,
      onLimited: () => refused('rate_limit'),
    });
  }
  installSerialization(app, options);
  installErrorHandlers(app, ctx.logger);
  installHttpMetrics(app, ctx.metrics);
  installCors(app, options.cors);
  await registerCompressionAndOpenApi(app, options);
  // No text parameter holding NUL reaches SQL (a 400 instead of PostgreSQL's encoding error).
  const db = guardTextParams(ctx.db);
  const deps = createRouteDeps(ctx, db, refused);
  registerReadRoutes(app, ctx, deps);
  registerStreams(app, ctx, deps, db);
  registerLivePage(app);
  registerSwaggerRoutes(app);
  return app;
}

/**
 * One pool of request validators for every app of the process: Fastify otherwise builds a new Ajv
 * instance per app and compiles every route's schemas again (a deployment serves one app per chain;
 * the pool is keyed by the app's shared schemas and options, so apps of one kind share compiled
 * validators).
 */
const SHARED_VALIDATORS = AjvCompiler();

/** The Fastify instance with the edge limits, the router's options and every method routable. */
export function createFastify(
  limits: ApiOptions['limits'],
  serverFactory?: FastifyServerFactory,
): FastifyInstance {
  const app = Fastify({
    logger: false,
    schemaController: { compilersFactory: { buildValidator: SHARED_VALIDATORS } },
    // The ingest process opens its port first and hands it over (it applies the same limits).
    ...(serverFactory ? { serverFactory } : {}),
    // Edge limits (docs/operator.md "Limits"): Node's parser answers past them, in JSON (http-edge.ts).
    http: edgeServerOptions(limits),
    requestTimeout: limits.requestTimeoutMs,
    bodyLimit: limits.maxBodyBytes,
    clientErrorHandler: createClientErrorHandler(limits),
    return503OnClosing: false,
    routerOptions: {
      caseSensitive: false,
      ignoreTrailingSlash: true,
      // Long bad input (addresses, hashes) must reach the parsers and get their 400, not a 414.
      maxParamLength: 2048,
      querystringParser: parseQueryString,
    },
    exposeHeadRoutes: true,
    // Malformed URLs (bad percent-encoding) get the JSON error body too.
    frameworkErrors: answerFrameworkError,
  });
  // Every method Node parses (but CONNECT, see http-edge.ts) is routable, so a known path answers
  // 405 to PROPFIND or TRACE instead of 404.
  for (const method of http.METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) {
      app.addHttpMethod(method, { hasBody: true });
    }
  }
  return app;
}

/** Malformed URLs (bad percent-encoding) get the JSON error body too. */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const named = error.code === 'FST_ERR_BAD_URL' ? malformedParameterError(request.url) : undefined;
  const message = named?.message ?? error.message;
  void reply
    .code(400)
    .header('content-type', 'application/json')
    // A Buffer keeps the bare `application/json` (onSend hooks do not run on this path).
    .send(Buffer.from(JSON.stringify({ code: 3, message, details: [] })));
}

/** Bodies as JSON text, the shared schemas, and the reference's bare content type. */
function installSerialization(app: FastifyInstance, options: ApiOptions): void {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  if (options.vmType === 'evm') for (const schema of EVM_SCHEMAS) app.addSchema(schema);
  installJsonBodies(app);
}

/** Bodies as JSON text, sent as the reference's bare `application/json`. */
export function installJsonBodies(app: FastifyInstance): void {
  // Bodies are assembled as JSON text; objects (errors) go through plain JSON.stringify.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // The reference sends `application/json` without a charset (docs/api.md §1.4).
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.getHeader('content-type') === 'application/json; charset=utf-8') {
      void reply.header('content-type', 'application/json');
    }
    return payload;
  });
}

async function registerCompressionAndOpenApi(app: FastifyInstance, options: ApiOptions): Promise<void> {
  await app.register(compress, {
    global: true,
    encodings: ['br', 'gzip'],
    // Fast settings: tx pages are ~0.7 MB of repetitive JSON, so even these shrink them ~10x,
    // at about 1.5x the throughput of the defaults (br quality 4, gzip level 6). bench/api/read.ts
    // (--encoding) measures them.
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } },
    zlibOptions: { level: 3 },
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'rollup-indexer API',
        description: `Read API of rollup-indexer for ${options.chainId} (${options.vmType}), route-compatible with Initia's rollytics indexer API`,
        version: options.version,
      },
      tags: [
        'App',
        'Block',
        'Tx',
        ...(options.vmType === 'evm' ? ['EVM Tx', 'EVM Internal Tx'] : []),
        'NFT',
        'Stream',
      ].map((name) => ({
        name,
      })),
    },
    refResolver: {
      // Keep the reference's definition names (status.StatusResponse, tx.TxsResponse, ...).
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
}

/** The readers over a guarded session, the response cache and the page-body pool. */
function createRouteDeps(ctx: ApiContext, db: Db, refused: ReturnType<typeof refusalCounter>): RouteDeps {
  const { options } = ctx;
  const { limits } = options;
  const watch = createStoreWatch({ identity: () => readStoreIdentity(db), checkEveryMs: STORE_CHECK_MS });
  const readerContext = {
    db,
    countTimeoutMs: options.countTimeoutMs,
    // Identical concurrent counts always share one query; with the cache on they live 1 s.
    totals: createTotalsCache({ ttlMs: options.cache ? 1000 : 0 }),
    maxOffset: limits.maxOffset,
    ...(limits.maxExpensiveQueries > 0
      ? { expensive: createWorkLimiter(limits.maxExpensiveQueries, () => refused('expensive_cap')) }
      : {}),
    ...(options.rowCacheBytes > 0
      ? { rowCache: createApiRowCache(watch, options.rowCacheBytes, ctx.metrics) }
      : {}),
  };
  return {
    options,
    cache: createResponseCache({ enabled: options.cache, maxBytes: options.cacheMaxBytes, watch }),
    bodies: createBodyPool({ maxBytes: BODY_POOL_BYTES }),
    readers: {
      blocks: createBlockReader(readerContext),
      txs: createTxReader(readerContext),
      evmTxs: createEvmTxReader(readerContext),
      evmInternalTxs: createEvmInternalTxReader(readerContext),
      richList: createRichListReader(readerContext),
      dicts: createDictReader({ db }),
      health: createHealthReader(readerContext),
      nftCollections: createNftCollectionReader(readerContext),
      nftTokens: createNftTokenReader(readerContext),
      nftPages: createNftPages(db, readerContext.rowCache),
    },
  };
}

function registerReadRoutes(app: FastifyInstance, ctx: ApiContext, deps: RouteDeps): void {
  const { options } = ctx;
  installReplicaLagMetric(ctx.metrics, deps.readers.health);
  installUndecodedTxsMetric(ctx.metrics, deps.readers.blocks);
  registerStatusRoutes(app, deps, ctx.nodeWaits);
  registerBlockRoutes(app, deps);
  registerTxRoutes(app, deps);
  if (options.vmType === 'evm') registerEvmTxRoutes(app, deps);
  if (options.vmType === 'evm') registerEvmInternalTxRoutes(app, deps);
  registerNftRoutes(app, deps);
  registerRichListRoutes(app, deps);
  registerUnavailableRoutes(app, options);
  if (ctx.nodeEndpoints) registerStatusEndpointsRoute(app, deps, ctx.nodeEndpoints);
  registerSystemRoutes(app, deps, {
    metrics: ctx.metrics,
    ...(ctx.readiness ? { readiness: ctx.readiness } : {}),
    ...(ctx.nodeWaits ? { waits: ctx.nodeWaits } : {}),
  });
}

/** The SSE routes over one hub fed by commits. */
function registerStreams(app: FastifyInstance, ctx: ApiContext, deps: RouteDeps, db: Db): void {
  const { options } = ctx;
  const streamReader = createStreamReader({ db });
  const streamMetrics = createStreamMetrics(ctx.metrics);
  const hub = createStreamHub({
    reader: streamReader,
    blocks: deps.readers.blocks,
    chainId: options.chainId,
    feed: ctx.commitFeed ?? createPollFeed(options.streams.pollMs),
    routes: options.vmType === 'evm' ? ['blocks', 'txs', 'evm-txs'] : ['blocks', 'txs'],
    heartbeatMs: options.streams.heartbeatMs,
    metrics: streamMetrics,
    logger: ctx.logger,
    // A commit feed is given on the primary (in-process or LISTEN); a replica is polled instead.
    trustDictionaryGrowth: ctx.commitFeed !== undefined,
  });
  ctx.onStreams?.({
    chainId: options.chainId,
    accountPrefix: options.accountPrefix,
    hub,
    reader: streamReader,
    blocks: deps.readers.blocks,
  });
  registerStreamRoutes(app, {
    options,
    hub,
    reader: streamReader,
    blocks: deps.readers.blocks,
    metrics: streamMetrics,
  });
}
