import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Db } from '../driver/db.js';

/** The repository's migrations folder, both from src/ (tsx, tests) and dist/src/ (built CLI). */
export function defaultMigrationsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const up = here.includes(`${path.sep}dist${path.sep}`) ? ['..', '..', '..', '..'] : ['..', '..', '..'];
  return path.resolve(here, ...up, 'migrations');
}

/** Every migration's file name, in the order they apply. */
export async function migrationNames(dir = defaultMigrationsDir()): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
}

const MIGRATION_LOCK_KEY = 72_616_746; // arbitrary, stable: serialises concurrent `migrate` runs

/**
 * Applies every `*.sql` file not yet recorded, in name order, each in its own transaction with
 * its record (a failing migration rolls back alone; the ones before it stay applied). One
 * transaction per file, not one for all: a lock a migration takes (e.g. ACCESS EXCLUSIVE for an
 * ALTER or DROP INDEX, milliseconds of catalog work) is released at its own commit instead of
 * being held through every later migration's index build, which the API's reads would wait on.
 * Released migrations are never edited; a new change is a new file.
 *
 * `upTo` (a file name) stops after that migration: an operator can stage a long upgrade (back up,
 * apply up to a point, check, go on), and tests can build a database as an older release left it.
 */
export async function migrate(
  db: Db,
  options: { dir?: string; logger?: Logger; upTo?: string } = {},
): Promise<{ applied: string[] }> {
  const dir = options.dir ?? defaultMigrationsDir();
  const files = pendingUpTo(await migrationNames(dir), options.upTo);
  await db.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const applied: string[] = [];
  for (const file of files) {
    const sql = await readFile(path.join(dir, file), 'utf8');
    const ran = await db.transaction(async (tx) => {
      // Serialises concurrent `migrate` runs; the record is read under the lock, so a file another
      // process applied meanwhile is skipped.
      if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [file]);
      if (done.rows.length > 0) return false;
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      return true;
    });
    if (!ran) continue;
    options.logger?.info({ migration: file }, 'applied migration');
    applied.push(file);
  }
  return { applied };
}

/** The files through `upTo` (all when undefined); a name that is not a migration is an input error. */
function pendingUpTo(files: string[], upTo: string | undefined): string[] {
  if (upTo === undefined) return files;
  const last = files.indexOf(upTo);
  if (last < 0)
    throw new InputError('unknown_migration', `no migration named ${upTo} (known: ${files.join(', ')})`);
  return files.slice(0, last + 1);
}
