import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../shared/logger.js';
import type { Db } from './db.js';

/** The repository's migrations folder, both from src/ (tsx, tests) and dist/src/ (built CLI). */
export function defaultMigrationsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const up = here.includes(`${path.sep}dist${path.sep}`) ? ['..', '..', '..'] : ['..', '..'];
  return path.resolve(here, ...up, 'migrations');
}

const MIGRATION_LOCK_KEY = 72_616_746; // arbitrary, stable: serialises concurrent `migrate` runs

/**
 * Applies every `*.sql` file not yet recorded, in name order, each in its own transaction.
 * Released migrations are never edited; a new change is a new file.
 */
export async function migrate(
  db: Db,
  options: { dir?: string; logger?: Logger } = {},
): Promise<{ applied: string[] }> {
  const dir = options.dir ?? defaultMigrationsDir();
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  await db.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    const done = new Set(
      (await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(path.join(dir, file), 'utf8');
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      options.logger?.info({ migration: file }, 'applied migration');
      applied.push(file);
    }
  });
  return { applied };
}
