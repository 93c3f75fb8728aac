import type { Db, Queryable } from './db.js';

/**
 * Where one chain of a deployment keeps its rows (docs/chains.md §3): its own PostgreSQL schema,
 * so every table, index and keyset stays the single-chain one and a chain can be re-indexed or
 * dropped without touching another's rows.
 */

/**
 * The schema that holds `chainId`'s rows: its own schema when it exists; else `public` when that is
 * a single-chain database of this very chain (it joins the deployment as it is, nothing moved or
 * re-indexed); else its own schema, created when `create` (ingest, migrate), else only named (the
 * API, read-only, finds it once ingest made it).
 */
export async function resolveChainSchema(
  db: Queryable,
  chainId: string,
  own: string,
  create: boolean,
): Promise<string> {
  if (await schemaExists(db, own)) return own;
  if (await publicHoldsChain(db, chainId)) return 'public';
  if (create) await db.exec(`CREATE SCHEMA IF NOT EXISTS ${own}`);
  return own;
}

async function schemaExists(db: Queryable, schema: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  return rows.length > 0;
}

async function publicHoldsChain(db: Queryable, chainId: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    "SELECT to_regclass('public.chain_meta') IS NOT NULL AS found",
  );
  if (!rows[0]?.found) return false;
  const meta = await db.query('SELECT 1 FROM public.chain_meta WHERE chain_id = $1', [chainId]);
  return meta.rows.length > 0;
}

/**
 * Views of one PGlite database, each bound to one schema. PGlite is one session, so a view sets
 * `search_path` before its statement when another view ran last; a lock keeps the two together
 * (PGlite runs one statement or transaction at a time anyway). The database closes with its last view.
 */
export function createSchemaViews(db: Db): (schema: string) => Db {
  let current: string | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let open = 0;
  const locked = <T>(schema: string, fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(async () => {
      if (current !== schema) {
        current = undefined;
        await db.exec(`SET search_path TO ${schema}`);
        current = schema;
      }
      return fn();
    });
    tail = run.catch(() => undefined);
    return run;
  };
  return (schema) => {
    open++;
    let closed = false;
    return {
      kind: db.kind,
      query: (sql, params) => locked(schema, () => db.query(sql, params)),
      exec: (sql) => locked(schema, () => db.exec(sql)),
      transaction: (fn) => locked(schema, () => db.transaction(fn)),
      async close() {
        if (closed) return;
        closed = true;
        if (--open === 0) await db.close();
      },
    };
  };
}
