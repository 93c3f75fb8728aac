import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import { loadApiDatabaseOptions, loadApiOptions, loadEdgeLimits } from '../api/options.js';
import { createInProcessFeed, type CommitFeed } from '../shared/commit-feed.js';
import type { Env, IngestOptions, NodeEndpoints } from '../shared/config.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { createMetricsRegistry, type Registry } from '../shared/metrics.js';
import { createIngestMetrics } from '../ingest/metrics.js';
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

export interface IngestProcessOptions {
  ingest: Readonly<IngestOptions>;
  env: Env;
  /** Serve the read API on ingest.port (start/demo) or only /health, /ready + /metrics (indexer). */
  withApi: boolean;
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
  const { ingest } = opts;
  const logger = opts.logger ?? createLogger({ level: ingest.logLevel, format: ingest.logFormat });
  const signal = shutdownSignal(logger);
  const registry = createMetricsRegistry();
  const metrics = createIngestMetrics(registry);
  const state = createIngestState();
  const port = await openHttpPort({
    port: ingest.port,
    host: ingest.host,
    registry,
    state,
    limits: loadEdgeLimits(opts.env),
  });
  opts.onListening?.(port.url);
  let db: Db | undefined;
  let apiDb: Db | undefined;
  let service: IngestService | undefined;
  let api: FastifyInstance | undefined;
  let height = 0;
  // Streams learn of commits from the pipeline itself, unless the API reads a replica, which has
  // a commit only once it replayed it (then the API polls the replica's own checkpoint).
  const commits = opts.withApi && !opts.env.DATABASE_READ_URL ? createInProcessFeed() : undefined;
  try {
    state.enter('database', 'opening the database');
    db = await openDatabase(ingest.database);
    await migrateWhenReachable(db, logger, state, signal);
    height = await readIndexedHeight(db);
    metrics.height.set(height);
    state.enter('node', 'waiting for the node');
    const endpoints = opts.resolveEndpoints ? await opts.resolveEndpoints(height) : ingest.endpoints;
    service = await createIngestService({
      options: { ...ingest, endpoints },
      logger,
      db,
      registry,
      metrics,
      signal,
      onNodeRetry: (err) => state.trouble(`node unreachable: ${err.message}`),
    });
    if (opts.withApi) {
      apiDb = await openApiDatabase(db, opts.env, ingest);
      api = await serveApi({ port, db: apiDb, env: opts.env, ingest, logger, registry, state, commits });
      opts.onApiListening?.(port.url);
    }
    await runService(
      service,
      { ...opts, onCommit: (p) => (opts.onCommit?.(p), commits?.committed()) },
      signal,
      state,
    );
  } catch (err) {
    // A signal during start-up (waiting for the node) is a stop, not a failure.
    if (!signal.aborted) throw err;
  } finally {
    state.enter('stopping', 'shutting down');
    // Ends the open streams (each gets a last event saying to resume), so the port can close.
    await api?.close();
    await port.close();
    if (apiDb && apiDb !== db) await apiDb.close();
    await db?.close();
    height = service?.height() ?? height;
    logger.info({ height }, `stopped at height ${height}`);
  }
  return height;
}

/**
 * A database that is not reachable yet (starting with the indexer, failing over) is waited for;
 * wrong credentials or a missing database stop at once with a message naming which.
 */
async function migrateWhenReachable(db: Db, logger: Logger, state: IngestState, signal: AbortSignal) {
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
  const { ingest } = opts;
  const bar = ingest.progress ? createProgressBar() : undefined;
  state.enter('ingesting', 'ingesting');
  state.progress({ height: service.height(), nodeHeight: service.height() });
  try {
    await service.run({
      signal,
      ...(ingest.untilHeight === undefined ? {} : { untilHeight: ingest.untilHeight }),
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
async function openApiDatabase(db: Db, env: Env, ingest: Readonly<IngestOptions>): Promise<Db> {
  if (ingest.database.kind === 'pglite') return db;
  const url = env.DATABASE_READ_URL || ingest.database.url;
  const { maxConnections, statementTimeoutMs } = loadApiDatabaseOptions(env);
  return openDatabase(
    { kind: 'postgres', url },
    { readOnly: true, statementTimeoutMs, maxConnections, preparedStatements: true, textAsBytes: true },
  );
}

/** Builds the API on the already-open port: from here on it answers every route. */
async function serveApi(ctx: {
  port: HttpPort;
  db: Db;
  env: Env;
  ingest: Readonly<IngestOptions>;
  logger: Logger;
  registry: Registry;
  state: IngestState;
  commits: CommitFeed | undefined;
}): Promise<FastifyInstance> {
  const meta = await readChainMeta(ctx.db);
  const options = loadApiOptions(
    { ...ctx.env, PORT: String(ctx.ingest.port), HOST: ctx.ingest.host },
    {},
    meta,
  );
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
    ...(ctx.commits ? { commitFeed: ctx.commits } : {}),
  });
  await app.ready();
  ctx.port.release();
  return app;
}
