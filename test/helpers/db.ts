import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { createPostgresDb, type Db } from '../../src/store/db.js';
import { createPgliteDb } from '../../src/store/pglite.js';
import { migrate } from '../../src/store/migrate.js';

export interface TestDbFactory {
  name: 'pglite' | 'postgres';
  /** A fresh, migrated database; dispose() drops it. */
  create(): Promise<{ db: Db; url?: string; dispose(): Promise<void> }>;
}

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export function testDbFactories(): TestDbFactory[] {
  const factories: TestDbFactory[] = [{ name: 'pglite', create: createPgliteTestDb }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) factories.push({ name: 'postgres', create: () => createPostgresTestDb(url) });
  return factories;
}

/** initdb dominates PGlite start-up, so each test process migrates once and clones a snapshot. */
let pgliteTemplate: Promise<Blob> | undefined;

async function createPgliteTestDb() {
  pgliteTemplate ??= (async () => {
    const db = await createPgliteDb({});
    await migrate(db);
    await db.exec('CHECKPOINT');
    const snapshot = await db.dumpDataDir!();
    await db.close();
    return snapshot;
  })();
  const db = await createPgliteDb({ template: await pgliteTemplate });
  return { db, dispose: () => db.close() };
}

/** One throw-away database per call, so parallel test files never share state. */
export async function createPostgresTestDb(baseUrl: string, options: { migrate?: boolean } = {}) {
  const name = `ri_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const db = createPostgresDb({ url: url.toString(), maxConnections: 4 });
  if (options.migrate !== false) await migrate(db);
  return {
    db,
    url: url.toString(),
    async dispose() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: baseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
