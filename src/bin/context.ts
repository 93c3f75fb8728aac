import type { DatabaseTarget } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { createPostgresDb, type Db, type PostgresOptions } from '../store/driver/db.js';

/** Opens the configured database: PostgreSQL by URL (with its session options), or the embedded PGlite. */
export async function openDatabase(
  target: DatabaseTarget,
  options: Omit<PostgresOptions, 'url'> = {},
): Promise<Db> {
  // PGlite (a WebAssembly PostgreSQL) is loaded only when it is the database.
  if (target.kind === 'pglite')
    return (await import('../store/driver/pglite.js')).createPgliteDb({ dataDir: target.dataDir });
  return createPostgresDb({ ...options, url: target.url });
}

/**
 * An AbortSignal fired by the first SIGINT/SIGTERM (finish the current commit, then stop);
 * a second signal exits at once.
 */
export function shutdownSignal(logger: Logger): AbortSignal {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(130);
    }
    logger.info({ signal }, 'shutting down: finishing the current commit');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller.signal;
}
