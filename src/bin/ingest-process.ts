import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import { withChainIdentity } from '../api/options.js';
import type { NodeEndpointsSource } from '../api/routes/status-endpoints.js';
import { createInProcessFeed, type CommitFeed } from '../shared/commit-feed.js';
import type { IngestOptions, NodeEndpoints } from '../shared/config.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { createMetricsRegistry, type Registry } from '../shared/metrics.js';
import { createNodeWaits, type NodeWaits } from '../shared/node-waits.js';
import { createIngestMetrics, type IngestMetrics } from '../ingest/metrics.js';
import { createIngestService, type IngestService } from '../ingest/service.js';
import type { Progress } from '../ingest/pipeline.js';
import { readChainMeta, readIndexedHeight } from '../store/readers/chain-meta.js';
import type { Db } from '../store/driver/db.js';
import { migrate } from '../store/migrations/migrate.js';
import { INGEST_RETRY, withRetry } from '../node/retry.js';
import { openDatabase, shutdownSignal } from './context.js';
import { openHttpPort, type HttpPort } from './http-port.js';
import { createIngestState, type IngestState } from './ingest-state.js';
import { createProgressBar } from './progress.js';
import type { IngestProcessConfig, ServedApiConfig } from './process-config.js';

export interface IngestProcessOptions {
  /** With `api`, the read API on ingest.port (start, demo); without, /health, /ready + /metrics only. */
  config: Readonly<IngestProcessConfig>;
  logger?: Logger;
  /** The HTTP port is open (health, readiness, metrics); the API joins it later. */
  onListening?: (url: string) => void;
  onApiListening?: (url: string) => void;
  onCommit?: (p: Progress) => void;
  /**
   * Where the node is, decided once the indexed height is known (the demo starts its simulator
   * there so a second run resumes at once). Default: `ingest.endpoints`.
   */
  resolveEndpoints?: (indexedHeight: number) => Promise<NodeEndpoints>;
}

/**
 * The long-running ingest process behind `start`, `indexer` and `demo`. The HTTP port opens
 * first, so `/health`, `/ready` (with the reason) and `/metrics` answer while the database is
 * opened and the node is waited for. Resolves with the last committed height once stopped
 * (signal, --until).
 */
export async function runIngestProcess(opts: IngestProcessOptions): Promise<number> {
  const { ingest, api: apiConfig } = opts.config;
  const logger = opts.logger ?? createLogger({ level: ingest.logLevel, format: ingest.logFormat });
  const registry = createMetricsRegistry();
  const ctx: ProcessContext = {
    logger,
    signal: shutdownSignal(logger),
    registry,
    metrics: createIngestMetrics(registry),
    state: createIngestState(),
    waits: createNodeWaits(),
  };
  const port = await openHttpPort({
    port: ingest.port,
    host: ingest.host,
    registry,
    state: ctx.state,
    waits: ctx.waits,
    limits: opts.config.edge,
  });
  opts.onListening?.(port.url);
  const opened: OpenedParts = { height: 0 };
  // Streams learn of commits from the pipeline itself, unless the API reads a replica, which has
  // a commit only once it replayed it (then the API polls the replica's own checkpoint).
  const commits = apiConfig && !apiConfig.readsReplica ? createInProcessFeed() : undefined;
  try {
    const { db, service } = await startIngestService(opts, ctx, opened);
    if (apiConfig) {
      opened.apiDb = await openApiDatabase(db, apiConfig, ingest);
      opened.api = await serveApi({
        ...ctx,
        port,
        db: opened.apiDb,
        config: apiConfig,
        commits,
        nodeEndpoints: () => service.endpointReport(),
      });
      opts.onApiListening?.(port.url);
    }
    const onCommit = (p: Progress) => (opts.onCommit?.(p), commits?.committed());
    await runService(service, { ...opts, onCommit }, ctx.signal, ctx.state);
  } catch (err) {
    // A signal during start-up (waiting for the node) is a stop, not a failure.
    if (!ctx.signal.aborted) throw err;
  } finally {
    await stopProcess(ctx, port, opened);
  }
  return opened.height;
}

/** What every step of the process shares. */
interface ProcessContext {
  logger: Logger;
  /** Fired by the first SIGINT/SIGTERM. */
  signal: AbortSignal;
  registry: Registry;
  metrics: IngestMetrics;
  state: IngestState;
  /** What ingest waits for on the node: shown by the API of this process (docs/api.md §4.1.1). */
  waits: NodeWaits;
}

/** What the process opened so far (closed in reverse when it stops), and the height it reached. */
interface OpenedParts {
  db?: Db;
  apiDb?: Db;
  service?: IngestService;
  api?: FastifyInstance;
  height: number;
}

/** The database (migrated once reachable), then the node (waited for), then the ingest service. */
async function startIngestService(
  opts: IngestProcessOptions,
  ctx: ProcessContext,
  opened: OpenedParts,
): Promise<{ db: Db; service: IngestService }> {
  const { ingest } = opts.config;
  ctx.state.enter('database', 'opening the database');
  const db = (opened.db = await openDatabase(ingest.database));
  await migrateWhenReachable(db, ctx.logger, ctx.state, ctx.signal);
  opened.height = await readIndexedHeight(db);
  ctx.metrics.height.set(opened.height);
  ctx.state.enter('node', 'waiting for the node');
  const endpoints = opts.resolveEndpoints ? await opts.resolveEndpoints(opened.height) : ingest.endpoints;
  opened.service = await createIngestService({
    options: { ...ingest, endpoints },
    logger: ctx.logger,
    db,
    registry: ctx.registry,
    metrics: ctx.metrics,
    signal: ctx.signal,
    onNodeRetry: (err) => ctx.state.trouble(`node unreachable: ${err.message}`),
    waits: ctx.waits,
  });
  return { db, service: opened.service };
}

async function stopProcess(ctx: ProcessContext, port: HttpPort, opened: OpenedParts): Promise<void> {
  ctx.state.enter('stopping', 'shutting down');
  // Ends the open streams (each gets a last event saying to resume), so the port can close.
  await opened.api?.close();
  await port.close();
  if (opened.apiDb && opened.apiDb !== opened.db) await opened.apiDb.close();
  await opened.db?.close();
  opened.height = opened.service?.height() ?? opened.height;
  ctx.logger.info({ height: opened.height }, `stopped at height ${opened.height}`);
}

/**
 * A database that is not reachable yet (starting with the indexer, failing over) is waited for;
 * wrong credentials or a missing database stop at once with a message naming which.
 */
export async function migrateWhenReachable(
  db: Db,
  logger: Logger,
  state: Pick<IngestState, 'trouble'>,
  signal: AbortSignal,
) {
  const { applied } = await withRetry(() => migrate(db, { logger }), {
    policy: INGEST_RETRY,
    what: 'database',
    signal,
    onRetry: (err) => {
      state.trouble(err.message);
      logger.warn({ err: err.message }, 'database unreachable, waiting for it');
    },
  });
  if (applied.length > 0) logger.info({ applied: applied.length }, 'database migrated');
}

async function runService(
  service: IngestService,
  opts: IngestProcessOptions,
  signal: AbortSignal,
  state: IngestState,
): Promise<void> {
  const { ingest } = opts.config;
  const bar = ingest.progress ? createProgressBar() : undefined;
  state.enter('ingesting', 'ingesting');
  state.progress({ height: service.height(), nodeHeight: service.height() });
  try {
    await service.run({
      signal,
      ...(ingest.untilHeight === undefined ? {} : { untilHeight: ingest.untilHeight }),
      ...(ingest.maxBlocksPerCommit === undefined
        ? {}
        : { tuning: { maxBlocksPerCommit: ingest.maxBlocksPerCommit } }),
      onCommit: (p) => {
        state.progress(p);
        bar?.update(p);
        opts.onCommit?.(p);
      },
    });
  } finally {
    bar?.done();
    await service.close();
  }
}

/** PGlite is shared in-process; PostgreSQL gets its own read-only pool (or a replica). */
async function openApiDatabase(db: Db, api: ServedApiConfig, ingest: Readonly<IngestOptions>): Promise<Db> {
  if (ingest.database.kind === 'pglite') return db;
  const { target, maxConnections, statementTimeoutMs } = api.database;
  return openDatabase(target, {
    readOnly: true,
    statementTimeoutMs,
    maxConnections,
    preparedStatements: true,
    textAsBytes: true,
  });
}

/** Builds the API on the already-open port: from here on it answers every route. */
async function serveApi(
  ctx: ProcessContext & {
    port: HttpPort;
    db: Db;
    config: ServedApiConfig;
    commits: CommitFeed | undefined;
    nodeEndpoints: NodeEndpointsSource;
  },
): Promise<FastifyInstance> {
  const options = withChainIdentity(ctx.config.settings, await readChainMeta(ctx.db));
  const serverFactory: FastifyServerFactory = (handler) => {
    ctx.port.adopt(handler);
    return ctx.port.server;
  };
  // Loaded here: `indexer` serves no API and need not load it (see cli.ts).
  const { createApiApp } = await import('../api/app.js');
  const app = await createApiApp({
    options,
    db: ctx.db,
    logger: ctx.logger,
    metrics: ctx.registry,
    serverFactory,
    readiness: async () => ctx.state.readiness(),
    nodeWaits: ctx.waits,
    nodeEndpoints: ctx.nodeEndpoints,
    ...(ctx.commits ? { commitFeed: ctx.commits } : {}),
  });
  await app.ready();
  ctx.port.release();
  return app;
}
