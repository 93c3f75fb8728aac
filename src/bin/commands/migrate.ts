import type { Command } from 'commander';
import type { DatabaseTarget } from '../../shared/config.js';
import { migrate } from '../../store/migrations/migrate.js';
import { createReadOnlyRole, readOnlyRoleSql } from '../../store/migrations/readonly-role.js';
import { openDatabase } from '../context.js';
import { loadMigrateConfig, type MigrateFlags } from '../process-config.js';

/** `rollup-indexer migrate`: pending migrations, and optionally the API's read-only role. */
export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .option('--database-url <url>', 'PostgreSQL URL; absent = embedded PGlite (env DATABASE_URL or DB_DSN)')
    .option('--data-dir <dir>', 'PGlite data directory (env DATA_DIR, default ./data)')
    .option('--to <migration>', 'apply pending migrations up to this file name only (a staged upgrade)')
    .option('--create-readonly-role <role>', 'also create/update a SELECT-only role for `api` (PostgreSQL)')
    .option('--readonly-password-env <NAME>', "environment variable holding that role's password")
    .option('--print-readonly-sql <role>', 'print the SQL that creates the read-only role, and exit')
    .action(async (flags: MigrateFlags) => {
      const config = loadMigrateConfig(process.env, flags);
      if (config.kind === 'print-readonly-sql') {
        console.log(readOnlyRoleSql(config.role, databaseName(config.database)));
        return;
      }
      const db = await openDatabase(config.database);
      try {
        const { applied } = await migrate(db, config.upTo === undefined ? {} : { upTo: config.upTo });
        console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
        const role = config.readonlyRole;
        if (role !== undefined) {
          await createReadOnlyRole(db, role.name, role.password);
          console.log(`read-only role ${role.name} can read every table (also those later migrations add)`);
        }
      } finally {
        await db.close();
      }
    });
}

/** The database the role is granted on: the URL's, else PostgreSQL's default. */
function databaseName(target: DatabaseTarget): string {
  const name = target.kind === 'postgres' ? new URL(target.url).pathname.slice(1) || 'postgres' : 'postgres';
  return decodeURIComponent(name);
}
