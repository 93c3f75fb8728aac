import pg from 'pg';
import { COMMIT_CHANNEL, type CommitFeed } from '../../shared/commit-feed.js';
import type { Logger } from '../../shared/logger.js';

/**
 * A CommitFeed from PostgreSQL LISTEN on the primary: one dedicated connection (not from the
 * pool), re-opened with capped backoff when it drops. Every (re)connect wakes the listener once,
 * since notifications sent while the connection was down are gone.
 */
export function createCommitListener(options: {
  url: string;
  logger: Logger;
  /**
   * The schema of the chain whose commits wake (a deployment's chains share their database's
   * channel, docs/chains.md §3); absent: every commit on the database wakes.
   */
  schema?: string;
}): CommitFeed {
  let wake: (() => void) | undefined;
  let client: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: options.url, application_name: 'rollup-indexer-listen' });
    client = c;
    c.on('notification', (n) => {
      if (n.channel === COMMIT_CHANNEL && committedIn(n.payload, options.schema)) wake?.();
    });
    c.on('error', () => reconnect(c));
    c.on('end', () => reconnect(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${COMMIT_CHANNEL}`);
      if (failures > 0) options.logger.info('stream commit listener reconnected');
      failures = 0;
      wake?.();
    } catch (err) {
      options.logger.warn({ err: (err as Error).message }, 'stream commit listener cannot connect, retrying');
      reconnect(c);
    }
  };
  const reconnect = (c: pg.Client) => {
    if (closed || client !== c || retry !== undefined) return;
    client = undefined;
    void c.end().catch(() => undefined);
    failures += 1;
    retry = setTimeout(
      () => {
        retry = undefined;
        void connect();
      },
      Math.min(5000, 100 * 2 ** Math.min(failures, 6)),
    );
    retry.unref();
  };

  return {
    start(listener) {
      wake = listener;
      void connect();
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}

/**
 * Whether a commit announcement concerns `schema`: the writer sends `<schema>:<height>`; a payload
 * without a schema (a writer of an earlier release) may concern any.
 */
export function committedIn(payload: string | undefined, schema: string | undefined): boolean {
  if (schema === undefined || payload === undefined) return true;
  const at = payload.lastIndexOf(':');
  return at === -1 || payload.slice(0, at) === schema;
}
