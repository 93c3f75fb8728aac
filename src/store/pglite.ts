import { mkdir } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.js';
import { mapPostgresError } from './db.js';

/**
 * Embedded PostgreSQL (PGlite) in a data directory, or in memory when dataDir is undefined.
 * One process owns the directory; PGlite serialises queries, and a transaction holds it exclusively.
 */
export async function createPgliteDb(options: {
  dataDir?: string;
  /** A dumped data directory to start from (skips initdb; used by tests). */
  template?: Blob;
}): Promise<Db> {
  const parsers = {
    [types.INT8]: (value: string) => Number(value),
    [types.NUMERIC]: (value: string) => value,
  };
  if (options.dataDir !== undefined) await mkdir(options.dataDir, { recursive: true });
  const pglite =
    options.dataDir === undefined
      ? await PGlite.create({ parsers, ...(options.template ? { loadDataDir: options.template } : {}) })
      : await PGlite.create(options.dataDir, { parsers });

  const wrap = (q: { query: PGlite['query']; exec: PGlite['exec'] }): Queryable => ({
    async exec(sql: string) {
      try {
        await q.exec(sql);
      } catch (err) {
        throw mapPostgresError(err);
      }
    },
    async query<Row>(sql: string, params?: readonly unknown[]) {
      try {
        const result = await q.query<Row>(sql, params as unknown[] | undefined);
        return { rows: result.rows };
      } catch (err) {
        throw mapPostgresError(err);
      }
    },
  });

  const base = wrap(pglite);
  return {
    kind: 'pglite',
    dumpDataDir: () => pglite.dumpDataDir('none'),
    query: base.query,
    exec: base.exec,
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
    async close() {
      await pglite.close();
    },
  };
}
