import { InputError } from '../../shared/errors.js';
import type { Db } from '../driver/db.js';

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * SQL that gives `role` read access and nothing else: SELECT on every table of the schema, also
 * on tables later migrations create (default privileges of the migrating role), no CREATE, and
 * read-only transactions by default. Privileges, not only the session default, make it read-only:
 * `SET default_transaction_read_only = off` gains the role nothing.
 */
/** `schema`: the one the role reads (`public`, or a chain's schema in a deployment: docs/chains.md §3). */
export function readOnlyRoleSql(role: string, database: string, schema = 'public'): string {
  if (!ROLE_NAME.test(role)) {
    throw new InputError('invalid_role', `role name must match ${ROLE_NAME.source}, got "${role}"`);
  }
  const db = `"${database.replaceAll('"', '""')}"`;
  return [
    `DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN
    CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
END $$;`,
    `ALTER ROLE ${role} SET default_transaction_read_only = on;`,
    `GRANT CONNECT ON DATABASE ${db} TO ${role};`,
    `GRANT USAGE ON SCHEMA ${schema} TO ${role};`,
    `REVOKE CREATE ON SCHEMA ${schema} FROM ${role};`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role};`,
    `ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT SELECT ON TABLES TO ${role};`,
  ].join('\n');
}

/** Creates (or updates) the read-only role in the database `db` is connected to. */
export async function createReadOnlyRole(
  db: Db,
  role: string,
  password: string | undefined,
  schema = 'public',
): Promise<void> {
  const { rows } = await db.query<{ name: string }>('SELECT current_database() AS name');
  await db.transaction(async (tx) => {
    await tx.exec(readOnlyRoleSql(role, rows[0]!.name, schema));
    if (password !== undefined) {
      // Quoted by the server (format %L): the password never appears in a log or in argv.
      const { rows: alter } = await tx.query<{ sql: string }>(
        "SELECT format('ALTER ROLE %I PASSWORD %L', $1::text, $2::text) AS sql",
        [role, password],
      );
      await tx.exec(alter[0]!.sql);
    }
  });
}
