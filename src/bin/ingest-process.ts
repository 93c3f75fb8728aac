import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { createApiApp } from '../api/app.js';
import { loadApiOptions } from '../api/options.js';
import { installPlainServerEdge } from '../api/http-edge.js';
import type { Env, IngestOptions } from '../shared/config.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { createMetricsRegistry, type Registry } from '../shared/metrics.js';
import { createIngestService } from '../ingest/service.js';
import type { Progress } from '../ingest/pipeline.js';
import { readChainMeta } from '../store/chain-meta.js';
import type { Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { openDatabase, shutdownSignal } from './context.js';
import { createProgressBar } from './progress.js';

export interface IngestProcessOptions {
  ingest: Readonly<IngestOptions>;
  env: Env;
  /** Serve the read API on ingest.port (start/demo) or only /health + /metrics (indexer). */
  withApi: boolean;
  logger?: Logger;
  onApiListening?: (url: string) => void;
  onCommit?: (p: Progress) => void;
}

/** The long-running ingest process behind `start`, `indexer` and `demo`. */
export async function runIngestProcess(opts: IngestProcessOptions): Promise<void> {
  const { ingest } = opts;
  const logger = opts.logger ?? createLogger({ level: ingest.logLevel, format: ingest.logFormat });
  const signal = shutdownSignal(logger);
  const db = await openDatabase(ingest.database);
  const registry = createMetricsRegistry();
  let server: { close(): Promise<unknown> } | undefined;
  let apiDb: Db | undefined;
  try {
    const { applied } = await migrate(db, { logger });
    if (applied.length > 0) logger.info({ applied: applied.length }, 'database migrated');
    const service = await createIngestService({ options: ingest, logger, db, registry });
    if (opts.withApi) {
      apiDb = await openApiDatabase(db, opts.env, ingest);
      const app = await startApi(apiDb, opts.env, ingest, logger, registry, service.height);
      server = app;
      opts.onApiListening?.(`http://${hostForUrl(app)}`);
    } else {
      server = await startMetricsServer(registry, ingest.port);
    }
    const bar = ingest.progress ? createProgressBar() : undefined;
    try {
      await service.run({
        signal,
        ...(ingest.untilHeight === undefined ? {} : { untilHeight: ingest.untilHeight }),
        onCommit: (p) => {
          bar?.update(p);
          opts.onCommit?.(p);
        },
      });
    } finally {
      bar?.done();
      await service.close();
    }
  } finally {
    await server?.close();
    if (apiDb && apiDb !== db) await apiDb.close();
    await db.close();
  }
}

/** PGlite is shared in-process; PostgreSQL gets its own read-only pool (or a replica). */
async function openApiDatabase(db: Db, env: Env, ingest: Readonly<IngestOptions>): Promise<Db> {
  if (ingest.database.kind === 'pglite') return db;
  const url = env.DATABASE_READ_URL || ingest.database.url;
  return openDatabase(
    { kind: 'postgres', url },
    { readOnly: true, statementTimeoutMs: 30_000, preparedStatements: true },
  );
}

async function startApi(
  db: Db,
  env: Env,
  ingest: Readonly<IngestOptions>,
  logger: Logger,
  registry: Registry,
  height: () => number,
): Promise<FastifyInstance> {
  const meta = await readChainMeta(db);
  const options = loadApiOptions({ ...env, PORT: String(ingest.port) }, {}, meta);
  const app = await createApiApp({
    options,
    db,
    logger,
    metrics: registry,
    readiness: async () =>
      height() > 0 ? { ready: true } : { ready: false, reason: 'no block indexed yet' },
  });
  await app.listen({ port: options.port, host: options.host });
  return app;
}

function hostForUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') return String(address);
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  return `${host}:${address.port}`;
}

/** `indexer` alone still answers /health and /metrics for its supervisor and Prometheus. */
async function startMetricsServer(registry: Registry, port: number): Promise<{ close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/metrics') {
      void registry.metrics().then((text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(text);
      });
    } else if (req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ok"}');
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"code":5,"message":"not found","details":[]}');
    }
  });
  installPlainServerEdge(server);
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
