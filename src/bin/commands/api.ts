import type { Command } from 'commander';
import { createApiApp } from '../../api/app.js';
import { withChainIdentity, type ApiDatabaseOptions, type ApiFlags } from '../../api/options.js';
import { redactUrl, type DatabaseTarget } from '../../shared/config.js';
import { AppError } from '../../shared/errors.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { createMetricsRegistry } from '../../shared/metrics.js';
import type { Db } from '../../store/driver/db.js';
import { createCommitListener } from '../../store/driver/commit-listener.js';
import { openDatabase } from '../context.js';
import { loadDeploymentApiConfig } from '../deployment-config.js';
import { runDeploymentApi } from '../deployment-api.js';
import { loadApiProcessConfig, type ApiProcessConfig } from '../process-config.js';
import { readChainMeta } from '../../store/readers/chain-meta.js';

/** PGlite: one process owns the directory, so this only works while no indexer runs on it. */
function openReadDb(db: ApiDatabaseOptions): Promise<Db> {
  return openDatabase(db.target, {
    readOnly: true,
    statementTimeoutMs: db.statementTimeoutMs,
    maxConnections: db.maxConnections,
    applicationName: 'rollup-indexer-api',
    preparedStatements: true,
    textAsBytes: true,
  });
}

/**
 * The recorded chain identity, read once at start. Wrong credentials or a missing database stop
 * here with one line naming which. A database that is only unreachable stops here too unless
 * CHAIN_ID and VM_TYPE are given: then the API starts and answers 503 until the database is back.
 */
async function chainMetaAtStart(db: Db, identityGiven: boolean, logger: Logger) {
  try {
    return await readChainMeta(db);
  } catch (err) {
    if (!(err instanceof AppError) || err.code === 'db_error') return undefined; // no chain_meta table yet
    if (err.code === 'db_unavailable' && identityGiven) {
      logger.warn({ err: err.message }, 'database unreachable at start; answering 503 until it is back');
      return undefined;
    }
    throw err;
  }
}

/** `rollup-indexer api`: the read-only HTTP API alone (stateless; run as many as you like). */
export function registerApi(program: Command): void {
  program
    .command('api')
    .description(
      'Serve the read-only HTTP API (DATABASE_READ_URL, else DATABASE_URL, else PGlite in DATA_DIR)',
    )
    .option('--port <port>', 'listen port (env PORT, default 8080)')
    .option('--host <host>', 'listen address (env HOST, default 0.0.0.0)')
    .option('--chain-id <id>', 'chain id (env CHAIN_ID; default: what ingest recorded)')
    .option('--vm-type <vm>', 'move | wasm | evm (env VM_TYPE; default: what ingest recorded)')
    .option('--no-cache', 'disable the in-process response cache (env API_CACHE=false)')
    .action(async (flags: ApiFlags) => {
      const deployment = loadDeploymentApiConfig(process.env, apiFlags(flags));
      if (deployment)
        return runDeploymentApi(deployment, undefined, {
          config: () => loadDeploymentApiConfig(process.env, apiFlags(flags))!,
        });
      const config = loadApiProcessConfig(process.env, apiFlags(flags));
      const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: 'api' });
      const db = await openReadDb(config.database);
      const { settings } = config;
      const identityGiven = Boolean(settings.chainId && settings.vmType);
      const options = withChainIdentity(settings, await chainMetaAtStart(db, identityGiven, logger));
      const app = await createApiApp({
        options,
        db,
        logger,
        metrics: createMetricsRegistry(),
        ...commitFeedFor(config, logger),
      });
      const address = await app.listen({ port: options.port, host: options.host });
      logger.info(
        {
          address,
          chainId: options.chainId,
          vmType: options.vmType,
          database: describeTarget(config.database.target),
          cache: options.cache,
        },
        'api listening',
      );
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      logger.info('api shutting down');
      await app.close();
      await db.close();
    });
}

/**
 * Streams on the primary LISTEN for the writer's NOTIFY; on a replica (DATABASE_READ_URL) no
 * notification arrives, so the API follows the replica's own replayed checkpoint (the default poll).
 */
function commitFeedFor(config: ApiProcessConfig, logger: Logger) {
  const { target } = config.database;
  if (config.readsReplica || target.kind !== 'postgres') return {};
  return { commitFeed: createCommitListener({ url: target.url, logger }) };
}

/** `--no-cache` turns the cache off; without it API_CACHE decides (commander says `cache: true`). */
function apiFlags(flags: ApiFlags): ApiFlags {
  const { cache, ...rest } = flags;
  return cache === false ? { ...rest, cache } : rest;
}

const describeTarget = (target: DatabaseTarget) =>
  target.kind === 'postgres' ? redactUrl(target.url) : target.dataDir;
