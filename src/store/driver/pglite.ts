import { access, constants, mkdir, statfs } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { AppError, errorMessage } from '../../shared/errors.js';
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
  /** Writes stop (disk_full) below this much free space in dataDir. Default 64 MiB. */
  minFreeBytes?: number;
  /** Server settings (postgresql.conf names and values) over PGlite's defaults. */
  settings?: Readonly<Record<string, string>>;
}): Promise<Db> {
  const parsers = {
    [types.INT8]: (value: string) => Number(value),
    [types.NUMERIC]: (value: string) => value,
  };
  const dataDir = options.dataDir;
  if (dataDir !== undefined) await openableDataDir(dataDir);
  const settings = Object.entries(options.settings ?? {}).map(([name, value]) => `${name}=${value}`);
  const pgliteOptions = { parsers, ...(settings.length > 0 ? { postgresqlconf: settings } : {}) };
  const pglite = await (
    dataDir === undefined
      ? PGlite.create({ ...pgliteOptions, ...(options.template ? { loadDataDir: options.template } : {}) })
      : PGlite.create(dataDir, pgliteOptions)
  ).catch((err: unknown) => {
    throw new AppError(
      'db_open_failed',
      `cannot open the embedded database in ${dataDir ?? 'memory'} (${errorMessage(err)}): another process may hold it, or it is damaged`,
      { cause: err },
    );
  });
  const ensureSpace =
    dataDir === undefined
      ? async () => undefined
      : spaceGuard(dataDir, options.minFreeBytes ?? 64 * 1024 * 1024);

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
    async transaction(fn) {
      await ensureSpace();
      return pglite.transaction((tx) => fn(wrap(tx)));
    },
    async close() {
      await pglite.close();
    },
  };
}

/** The data directory exists and can be written, or a one-line error says which. */
async function openableDataDir(dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true });
    await access(dataDir, constants.W_OK);
  } catch (err) {
    throw new AppError(
      'data_dir_not_writable',
      `DATA_DIR ${dataDir} cannot be written: ${errorMessage(err)}`,
      {
        cause: err,
      },
    );
  }
}

/**
 * PGlite does not fail on a full disk: it spins inside WebAssembly, blocking the process. So
 * writes stop before it gets there, with a clear error and nothing half-written.
 */
function spaceGuard(dataDir: string, minFreeBytes: number): () => Promise<void> {
  return async () => {
    const fs = await statfs(dataDir);
    const free = fs.bavail * fs.bsize;
    if (free < minFreeBytes) {
      const mb = (n: number) => `${Math.floor(n / 1024 / 1024)} MiB`;
      throw new AppError(
        'disk_full',
        `only ${mb(free)} free in DATA_DIR ${dataDir} (below ${mb(minFreeBytes)}): stopped before writing; free space and start again, ingest resumes from the checkpoint`,
      );
    }
  };
}
