/**
 * Builds the CLI once per test run for the tests that start it as a child process (crash, restart,
 * startup errors ...). Started through tsx, every process took its ~300 modules through loader
 * hooks first: about 1 s more CPU per start than plain JavaScript, and the suite starts the CLI
 * ~100 times. esbuild transforms src/ file by file (what tsx does on the fly, so the code under
 * test is the same); type checking stays with `npm run lint`.
 */
import { build } from 'esbuild';
import { mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { createPgliteDb } from '../src/store/driver/pglite.js';
import { migrate } from '../src/store/migrations/migrate.js';
import type { Db } from '../src/store/driver/db.js';
import { createPostgresTemplate } from './helpers/db.js';
import { databaseUrlRequirement, missingRequirementMessage, requireAll } from './helpers/requirements.js';

const root = fileURLToPath(new URL('..', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built `rollup-indexer` entry point: `node <cliPath> <command> …`. */
    cliPath: string;
    /** PGlite data directories (tar files) of this run: fresh, and migrated through the last migration. */
    pgliteSnapshots: PgliteSnapshots;
    /** A PostgreSQL database migrated through the last migration, to clone (TEST_DATABASE_URL runs only). */
    pgTemplate: string | undefined;
  }
}

export interface PgliteSnapshots {
  unmigrated: string;
  migrated: string;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Without a URL the PostgreSQL variants of ~40 files are simply not generated (not even listed
  // as skipped), so under RI_TEST_REQUIRE_ALL=1 the whole run stops here instead.
  const database = databaseUrlRequirement();
  if (requireAll() && !database.found) {
    throw new Error(`RI_TEST_REQUIRE_ALL=1 and ${missingRequirementMessage(database)}`);
  }
  // Per run: parallel runs (two checkouts' CI, watch mode) must not rebuild under each other.
  const out = path.join(root, 'node_modules', '.cache', 'rollup-indexer-test-cli', String(process.pid));
  await rm(out, { recursive: true, force: true });
  const baseUrl = process.env.TEST_DATABASE_URL;
  const [, snapshots, template] = await Promise.all([
    buildCli(out),
    writePgliteSnapshots(path.join(out, 'pglite')),
    baseUrl ? createPostgresTemplate(baseUrl) : undefined,
  ]);
  project.provide('cliPath', path.join(out, 'dist', 'src', 'bin', 'cli.js'));
  project.provide('pgliteSnapshots', snapshots);
  project.provide('pgTemplate', template?.name);
  return async () => {
    await template?.dispose();
    await rm(out, { recursive: true, force: true });
  };
}

async function buildCli(out: string): Promise<void> {
  await build({
    entryPoints: await sourceFiles(path.join(root, 'src')),
    outbase: path.join(root, 'src'),
    // The same layout as `npm run build` (dist/src), so the CLI finds migrations/ and contracts/.
    outdir: path.join(out, 'dist', 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  // Inside node_modules, Node sees no package scope: say ESM explicitly.
  await writeFile(path.join(out, 'package.json'), '{ "type": "module" }\n');
  for (const dir of ['migrations', 'contracts', 'public'])
    await symlink(path.join(root, dir), path.join(out, dir));
}

/**
 * initdb is most of a PGlite database's start-up (~2.5 s of CPU; migrating takes a tenth of that),
 * and every test process that opens PGlite paid it once (test/helpers/db.ts): ~50 files a run.
 * Made here once, from one initdb, and cloned by each process as before.
 */
async function writePgliteSnapshots(dir: string): Promise<PgliteSnapshots> {
  await mkdir(dir, { recursive: true });
  const files = { unmigrated: path.join(dir, 'unmigrated.tar'), migrated: path.join(dir, 'migrated.tar') };
  const db = await createPgliteDb({});
  try {
    await writeFile(files.unmigrated, await snapshotBytes(db));
    await migrate(db);
    await writeFile(files.migrated, await snapshotBytes(db));
  } finally {
    await db.close();
  }
  return files;
}

async function snapshotBytes(db: Db): Promise<Uint8Array> {
  await db.exec('CHECKPOINT');
  return new Uint8Array(await (await db.dumpDataDir!()).arrayBuffer());
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}
