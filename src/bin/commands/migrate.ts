import type { Command } from 'commander';
import { databaseTarget } from '../../shared/config.js';
import { InputError } from '../../shared/errors.js';
import { migrate } from '../../store/migrations/migrate.js';
import { createReadOnlyRole, readOnlyRoleSql } from '../../store/migrations/readonly-role.js';
import { openDatabase } from '../context.js';

interface MigrateFlags {
  databaseUrl?: string;
  dataDir?: string;
  createReadonlyRole?: string;
  readonlyPasswordEnv?: string;
  printReadonlySql?: string;
  to?: string;
}

function readonlyPassword(variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  const value = process.env[variable];
  if (!value) throw new InputError('missing_option', `environment variable ${variable} is empty or unset`);
  return value;
}

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
      const target = databaseTarget(
        flags.databaseUrl ?? process.env.DATABASE_URL ?? process.env.DB_DSN,
        flags.dataDir ?? process.env.DATA_DIR,
      );
      if (flags.printReadonlySql !== undefined) {
        const database =
          target.kind === 'postgres' ? new URL(target.url).pathname.slice(1) || 'postgres' : 'postgres';
        console.log(readOnlyRoleSql(flags.printReadonlySql, decodeURIComponent(database)));
        return;
      }
      const role = flags.createReadonlyRole;
      if (role !== undefined && target.kind !== 'postgres')
        throw new InputError('invalid_option', '--create-readonly-role needs a PostgreSQL DATABASE_URL');
      const password = readonlyPassword(flags.readonlyPasswordEnv);
      const db = await openDatabase(target);
      try {
        const { applied } = await migrate(db, flags.to === undefined ? {} : { upTo: flags.to });
        console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
        if (role !== undefined) {
          await createReadOnlyRole(db, role, password);
          console.log(`read-only role ${role} can read every table (also those later migrations add)`);
        }
      } finally {
        await db.close();
      }
    });
}
