import { createHash } from 'node:crypto';
import pg from 'pg';
import { AppError, type ErrorCode } from '../../shared/errors.js';
import { BytesClient, bytesQueryTypes } from './pg-bytes.js';

/** Anything that runs parameterised SQL: the pool itself or one transaction. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<{ rows: Row[] }>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * PostgreSQL pools opened with `textAsBytes`: like query, but `text` columns come as Buffers of
   * their UTF-8 bytes, never decoded (stored JSON spliced into a response, issue 24).
   */
  queryBytes?<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<{ rows: Row[] }>;
  /**
   * PostgreSQL only: queries under their own statement timeout (a second, lazily opened pool whose
   * sessions carry it), so a bounded count is one round trip instead of BEGIN/SET LOCAL/…/COMMIT.
   */
  withStatementTimeout?(timeoutMs: number): Queryable;
  /** PGlite only: a snapshot of the data directory. */
  dumpDataDir?(): Promise<Blob>;
}

export interface PostgresOptions {
  url: string;
  /** Session is read-only (API processes). */
  readOnly?: boolean;
  /** Statement timeout in ms (0 = none). */
  statementTimeoutMs?: number;
  maxConnections?: number;
  applicationName?: string;
  /**
   * Run every statement as a named prepared statement (API pools): PostgreSQL then parses it once
   * per connection and may reuse a generic plan; planning is most of a point look-up's cost.
   */
  preparedStatements?: boolean;
  /** Offer `queryBytes` (API pools): see pg-bytes.ts. */
  textAsBytes?: boolean;
  /** The schema every session reads and writes (`search_path`): one chain of a deployment. */
  schema?: string;
}

const INT8_OID = 20;

/** int8 comes back as a JS number (heights, sequences, ids stay far below 2^53); numeric stays a string. */
function typeParser(oid: number, format?: string): (value: string) => unknown {
  if (oid === INT8_OID) return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format as 'text');
}
const TYPES = { getTypeParser: typeParser as typeof pg.types.getTypeParser };
const BYTES_TYPES = bytesQueryTypes(TYPES);

export function createPostgresDb(options: PostgresOptions): Db {
  const pool = openPool(options);
  const target = describeTarget(options.url);
  const prepared = options.preparedStatements === true;
  const query = poolQuery(pool, prepared, target);
  const timedPools = new Map<number, pg.Pool>();

  return {
    kind: 'postgres',
    query,
    ...(options.textAsBytes ? { queryBytes: poolQuery(pool, prepared, target, BYTES_TYPES) } : {}),
    async exec(sql) {
      await query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect().catch((err: unknown) => {
        throw mapPostgresError(err, target);
      });
      const tx: Queryable = {
        async query<Row>(sql: string, params?: readonly unknown[]) {
          const result = await client.query(sql, params as unknown[] | undefined).catch((err: unknown) => {
            throw mapPostgresError(err, target);
          });
          return { rows: result.rows as Row[] };
        },
        async exec(sql) {
          await tx.query(sql);
        },
      };
      try {
        await client.query('BEGIN');
        const value = await fn(tx);
        await client.query('COMMIT');
        client.release();
        return value;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(true);
        throw mapPostgresError(err, target);
      }
    },
    withStatementTimeout(timeoutMs) {
      let timed = timedPools.get(timeoutMs);
      if (!timed) {
        timed = openPool({ ...options, statementTimeoutMs: timeoutMs });
        timedPools.set(timeoutMs, timed);
      }
      const timedQuery = poolQuery(timed, prepared, target);
      return {
        query: timedQuery,
        async exec(sql) {
          await timedQuery(sql);
        },
      };
    },
    async close() {
      await Promise.all([pool.end(), ...[...timedPools.values()].map((p) => p.end())]);
    },
  };
}

function openPool(options: PostgresOptions): pg.Pool {
  const sessionOptions = [
    options.readOnly ? '-c default_transaction_read_only=on' : '',
    options.statementTimeoutMs ? `-c statement_timeout=${options.statementTimeoutMs}` : '',
    options.schema ? `-c search_path=${options.schema}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName ?? 'rollup-indexer',
    ...(sessionOptions ? { options: sessionOptions } : {}),
    types: TYPES,
    ...(options.textAsBytes ? { Client: BytesClient } : {}),
  });
  // An idle client that loses its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // Nor may one the pool has just handed out: pg-pool drops its own listener at hand-over, and a
  // promise-based connect() resumes only after the current socket read, which can already carry
  // that connection's FATAL (pg_terminate_backend, a restart). The failure reaches the caller
  // through its next query, which rejects, and the transaction then discards the client.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** SQLSTATE of "cached plan must not change result type": a migration changed a prepared statement's rows. */
const CACHED_PLAN_STALE = '0A000';

function poolQuery(pool: pg.Pool, prepared: boolean, target: string, types?: pg.CustomTypesConfig) {
  return async <Row>(sql: string, params?: readonly unknown[]) => {
    const values = (params ?? []) as unknown[];
    const run = (config: pg.QueryConfig) => pool.query(types ? { ...config, types } : config);
    const result = await (
      prepared ? run({ name: statementName(sql), text: sql, values }) : run({ text: sql, values })
    )
      .catch((err: unknown) => {
        // That connection keeps the stale statement; the unnamed form always plans afresh.
        if (prepared && (err as { code?: unknown }).code === CACHED_PLAN_STALE)
          return run({ text: sql, values });
        throw err;
      })
      .catch((err: unknown) => {
        throw mapPostgresError(err, target);
      });
    return { rows: result.rows as Row[] };
  };
}

const statementNames = new Map<string, string>();

/** A stable name per SQL text: each connection parses and plans a reader's statement once. */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `ri_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/** SQLSTATE classes that mean "the database is not reachable right now" (retry later). */
const UNAVAILABLE_SQLSTATE_PREFIXES = ['08', '53', '57P'];
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Who and where, for messages: `user "u", database "d" at host:port` — never the password. */
export function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    const user = decodeURIComponent(u.username) || 'postgres';
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || user;
    return `user "${user}", database "${database}" at ${u.hostname || 'localhost'}:${u.port || '5432'}`;
  } catch {
    return 'the configured database';
  }
}

/**
 * A driver error as an AppError, by SQLSTATE or errno (never by message text). `target` (from
 * describeTarget) makes connection failures say which setting to fix.
 */
export function mapPostgresError(err: unknown, target = 'the database'): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown }).code;
  const connection = connectionError(code, target, err);
  if (connection) return connection;
  if (typeof code === 'string') {
    if (code === '57014')
      return new AppError('db_statement_timeout', 'database statement timed out', { cause: err });
    if (code === '25006')
      return new AppError('db_read_only', 'database session is read-only', { cause: err });
  }
  if (err instanceof Error && /Connection terminated|connect/i.test(err.message) && code === undefined) {
    return new AppError('db_unavailable', `database unavailable (${target}): connection lost`, {
      cause: err,
      retryable: true,
    });
  }
  return new AppError('db_error', 'database error', { cause: err });
}

function connectionError(code: unknown, target: string, cause: unknown): AppError | undefined {
  if (typeof code !== 'string') return undefined;
  const fatal = (c: ErrorCode, message: string) => new AppError(c, message, { cause });
  const retry = (reason: string) =>
    new AppError('db_unavailable', `database unavailable (${target}): ${reason}`, { cause, retryable: true });
  if (code === '28P01')
    return fatal('db_auth_failed', `authentication failed for ${target}: check the password in the URL`);
  if (code === '28000')
    return fatal(
      'db_rejected',
      `the server rejects ${target} (pg_hba.conf); if it requires TLS, add sslmode=require to the URL`,
    );
  if (code === '3D000') return fatal('db_missing', `${target}: the database does not exist`);
  if (code === 'ECONNREFUSED') return retry('connection refused (is the server running?)');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return retry('host name not found');
  if (NETWORK_ERROR_CODES.has(code)) return retry(`network error ${code}`);
  if (UNAVAILABLE_SQLSTATE_PREFIXES.some((p) => code.startsWith(p))) return retry(`server says ${code}`);
  return undefined;
}
