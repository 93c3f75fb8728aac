import pg from 'pg';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { createPostgresDb, type Db } from '../../src/store/driver/db.js';
import { createPgliteDb } from '../../src/store/driver/pglite.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import type { VmType } from '../../src/sim/types.js';

export interface TestDbFactory {
  name: 'pglite' | 'postgres';
  /** A fresh database migrated fully (or through `upTo`, a migration file name); dispose() drops it. */
  create(options?: { upTo?: string }): Promise<{ db: Db; url?: string; dispose(): Promise<void> }>;
}

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export function testDbFactories(): TestDbFactory[] {
  const factories: TestDbFactory[] = [{ name: 'pglite', create: createPgliteTestDb }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) factories.push({ name: 'postgres', create: (options) => createPostgresTestDb(url, options) });
  return factories;
}

/**
 * The VMs a heavy end-to-end suite (long chains, killed processes, many chains per file) runs on a
 * store: each VM once and each store once (docs/testing.md, "Where each heavy guarantee is
 * proven"). What differs by VM (collectors, stages, node clients) runs the same SQL on either
 * store, and what differs by store (driver, recovery of a killed data directory) does not depend
 * on the VM. So with both stores in the run PGlite — 3-4x slower per block — takes one VM (Move,
 * the VM with every block-pipeline collector on, or `pgliteVm` where another VM exercises more of
 * what the suite proves: EVM for the stages) and PostgreSQL the other two; a store alone takes all
 * three.
 */
export function heavySuiteVms(store: string, pgliteVm: VmType = 'move'): readonly VmType[] {
  const all: readonly VmType[] = ['move', 'wasm', 'evm'];
  if (!process.env.TEST_DATABASE_URL) return all;
  return store === 'pglite' ? [pgliteVm] : all.filter((vm) => vm !== pgliteVm);
}

/**
 * initdb dominates PGlite start-up, so every database clones a snapshot: under vitest the two
 * test/global-setup.ts made once for the run, elsewhere (benchmarks) one made once per process. A
 * database migrated only through `upTo` clones the unmigrated snapshot and migrates that far.
 */
let pgliteTemplate: Promise<Blob> | undefined;
let pgliteUnmigrated: Promise<Blob> | undefined;

/** The migrated PostgreSQL template database of this vitest run, if any (test/global-setup.ts). */
function runPgTemplate(): string | undefined {
  try {
    return inject('pgTemplate');
  } catch {
    return undefined; // not inside a vitest run
  }
}

/**
 * A database migrated through the last migration, for createPostgresTestDb to clone; made once per
 * run. dispose() drops it.
 */
export async function createPostgresTemplate(
  baseUrl: string,
): Promise<{ name: string; dispose(): Promise<void> }> {
  const made = await createPostgresTestDb(baseUrl);
  await made.db.close();
  const name = `ri_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`ALTER DATABASE ${new URL(made.url).pathname.slice(1)} RENAME TO ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    async dispose() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

function runSnapshots(): { unmigrated: string; migrated: string } | undefined {
  try {
    return inject('pgliteSnapshots');
  } catch {
    return undefined; // not inside a vitest run
  }
}

/**
 * A fully migrated PGlite data directory at `dataDir`, unpacked from the run's snapshot (a dump of
 * the data directory, test/global-setup.ts) for a CLI child or createPgliteDb({ dataDir }) to open:
 * initdb and the migrations in a directory of their own cost ~3 s of CPU.
 */
export function writeMigratedPgliteDir(dataDir: string): Promise<void> {
  return unpackSnapshot(inject('pgliteSnapshots').migrated, dataDir);
}

/**
 * A fresh PGlite data directory at `dataDir` (initdb done, nothing migrated), unpacked from the
 * run's snapshot: what a deployment's embedded database is before its first start, without its
 * initdb (~2.5 s of CPU) in every test that starts one.
 */
export function writeFreshPgliteDir(dataDir: string): Promise<void> {
  return unpackSnapshot(inject('pgliteSnapshots').unmigrated, dataDir);
}

async function unpackSnapshot(snapshot: string, dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await promisify(execFile)('tar', ['-xf', snapshot, '-C', dataDir]);
}

async function snapshotOf(db: Db): Promise<Blob> {
  const snapshot = await cloneableSnapshot(db);
  await db.close();
  return snapshot;
}

/**
 * A dump of a PGlite data directory for test databases to clone, without the two template
 * databases: PGlite opens `postgres`, no test creates a database, and a clone writes every file of
 * the dump into memory, so the templates were 15 of its 40 MB and a third of its CPU (~280 -> 185 ms).
 */
export async function cloneableSnapshot(db: Db): Promise<Blob> {
  // One statement a call: DROP DATABASE refuses to run inside a multi-statement string.
  await db.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
  for (const name of ['template0', 'template1']) await db.exec(`DROP DATABASE IF EXISTS ${name}`);
  await db.exec('CHECKPOINT');
  return db.dumpDataDir!();
}

/**
 * Test databases hold kilobytes to a few megabytes: PGlite's 128 MB buffer cache only cost each
 * clone ~120 ms of CPU to set up.
 */
const TEST_PGLITE_SETTINGS = { shared_buffers: '16MB' } as const;

async function createPgliteTestDb(options: { upTo?: string } = {}) {
  if (options.upTo !== undefined) {
    const snapshots = runSnapshots();
    pgliteUnmigrated ??= snapshots ? openAsBlob(snapshots.unmigrated) : createPgliteDb({}).then(snapshotOf);
    const db = await createPgliteDb({ template: await pgliteUnmigrated, settings: TEST_PGLITE_SETTINGS });
    await migrate(db, { upTo: options.upTo });
    return { db, dispose: () => db.close() };
  }
  const db = await createPgliteDb({
    template: await migratedPgliteSnapshot(),
    settings: TEST_PGLITE_SETTINGS,
  });
  return { db, dispose: () => db.close() };
}

/** A PGlite data directory migrated through the last migration, dumped (made once per run). */
function migratedPgliteSnapshot(): Promise<Blob> {
  const snapshots = runSnapshots();
  pgliteTemplate ??= snapshots
    ? openAsBlob(snapshots.migrated)
    : (async () => {
        const db = await createPgliteDb({});
        await migrate(db);
        return snapshotOf(db);
      })();
  return pgliteTemplate;
}

/** The index a CLI child is given (`storeIndependentIndex`). */
export interface ChildIndex {
  /** DATABASE_URL or DATA_DIR, for the child's environment. */
  env: Record<string, string>;
  /** Runs `fn` on the index from this process while no child writes it (PGlite: opened for the call alone). */
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  dispose(): Promise<void>;
}

/**
 * A migrated index for CLI children whose test does not depend on the store: a PostgreSQL database
 * of its own when PostgreSQL is in the run (native: the children and this process read it for a
 * fraction of PGlite's CPU), else a PGlite data directory at `dataDir`.
 */
export async function storeIndependentIndex(dataDir: string): Promise<ChildIndex> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const made = await createPostgresTestDb(url);
    return { env: { DATABASE_URL: made.url }, withDb: (fn) => fn(made.db), dispose: made.dispose };
  }
  await writeMigratedPgliteDir(dataDir);
  return {
    env: { DATA_DIR: dataDir },
    async withDb(fn) {
      const db = await createPgliteDb({ dataDir });
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    },
    dispose: async () => undefined,
  };
}

/** One throw-away database per call, so parallel test files never share state. */
export async function createPostgresTestDb(
  baseUrl: string,
  options: { migrate?: boolean; upTo?: string } = {},
) {
  const name = `ri_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  // A fully migrated database clones the run's migrated template (test/global-setup.ts): migrating
  // took ~20 DDL transactions per database, and the suite makes hundreds.
  const template = options.migrate !== false && options.upTo === undefined ? runPgTemplate() : undefined;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    // No test crashes this server: a commit need not wait for its WAL flush.
    await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const db = createPostgresDb({ url: url.toString(), maxConnections: 4 });
  if (options.migrate !== false && !template)
    await migrate(db, options.upTo === undefined ? {} : { upTo: options.upTo });
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
