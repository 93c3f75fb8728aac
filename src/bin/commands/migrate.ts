import type { Command } from 'commander';
import type { DatabaseTarget } from '../../shared/config.js';
import { migrate } from '../../store/migrations/migrate.js';
import { createReadOnlyRole, readOnlyRoleSql } from '../../store/migrations/readonly-role.js';
import { loadChainsFile } from '../../shared/chains-file.js';
import type { Db } from '../../store/driver/db.js';
import { createChainDatabases } from '../chain-databases.js';
import { openDatabase } from '../context.js';
import { loadMigrateConfig, type MigrateConfig, type MigrateFlags } from '../process-config.js';

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
      const chainsFile = process.env.CHAINS_FILE?.trim();
      if (chainsFile) return migrateChains(config, chainsFile);
      const db = await openDatabase(config.database);
      try {
        await migrateOne(db, config, '');
      } finally {
        await db.close();
      }
    });
}

type ApplyConfig = Extract<MigrateConfig, { kind: 'migrate' }>;

/** Pending migrations of one database (or one chain's schema), then the read-only role on it. */
async function migrateOne(db: Db, config: ApplyConfig, label: string, schema?: string): Promise<void> {
  const { applied } = await migrate(db, config.upTo === undefined ? {} : { upTo: config.upTo });
  console.log(
    applied.length ? `${label}applied ${applied.join(', ')}` : `${label || 'database is '}up to date`,
  );
  const role = config.readonlyRole;
  if (role !== undefined) {
    await createReadOnlyRole(db, role.name, role.password, schema);
    console.log(`${label}read-only role ${role.name} can read every table (also those later migrations add)`);
  }
}

/** With a chains file: every chain's schema, on its shard or the deployment's database (docs/chains.md §3). */
async function migrateChains(config: ApplyConfig, file: string): Promise<void> {
  const databases = createChainDatabases();
  for (const chain of loadChainsFile(file)) {
    const target = chain.databaseUrl
      ? { kind: 'postgres' as const, url: chain.databaseUrl }
      : config.database;
    const { db, schema } = await databases.open(chain.chainId, target);
    try {
      await migrateOne(db, config, `${chain.chainId} (schema ${schema}): `, schema);
    } finally {
      await db.close();
    }
  }
}

/** The database the role is granted on: the URL's, else PostgreSQL's default. */
function databaseName(target: DatabaseTarget): string {
  const name = target.kind === 'postgres' ? new URL(target.url).pathname.slice(1) || 'postgres' : 'postgres';
  return decodeURIComponent(name);
}
