import type { DatabaseTarget } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { createPostgresDb, type Db } from '../store/db.js';
import { createPgliteDb } from '../store/pglite.js';

/** Opens the configured database: PostgreSQL by URL, or the embedded PGlite in its data directory. */
export async function openDatabase(
  target: DatabaseTarget,
  options: { readOnly?: boolean; statementTimeoutMs?: number; preparedStatements?: boolean } = {},
): Promise<Db> {
  if (target.kind === 'pglite') return createPgliteDb({ dataDir: target.dataDir });
  return createPostgresDb({
    url: target.url,
    ...(options.readOnly ? { readOnly: true } : {}),
    ...(options.statementTimeoutMs ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
    ...(options.preparedStatements ? { preparedStatements: true } : {}),
  });
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
