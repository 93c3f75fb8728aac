/**
 * Builds the CLI once per test run for the tests that start it as a child process (crash, restart,
 * startup errors ...). Started through tsx, every process took its ~300 modules through loader
 * hooks first: about 1 s more CPU per start than plain JavaScript, and the suite starts the CLI
 * ~100 times. Transformed file by file (as `npm run build` lays it out), a start still resolved and
 * loaded ~3,000 modules (viem, TypeBox, zod and the like ship one module per function): ~0.25 s of
 * its ~0.45 s of CPU before the command ran. So the children run a bundle (see bundleCli); the
 * test of which modules a command loads makes the file-by-file transform it needs itself
 * (test/helpers/cli-build.ts). Type checking stays with `npm run lint`.
 */
import { build, type Plugin } from 'esbuild';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import { createPgliteDb } from '../src/store/driver/pglite.js';
import { migrate } from '../src/store/migrations/migrate.js';
import type { Db } from '../src/store/driver/db.js';
import { cloneableSnapshot, createPostgresTemplate } from './helpers/db.js';
import { NODE_ESM, writePackageScope } from './helpers/cli-build.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { databaseUrlRequirement, missingRequirementMessage, requireAll } from './helpers/requirements.js';

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
  const out = path.join(REPO_ROOT, 'node_modules', '.cache', 'rollup-indexer-test-cli', String(process.pid));
  await rm(out, { recursive: true, force: true });
  const baseUrl = process.env.TEST_DATABASE_URL;
  const [, snapshots, template] = await Promise.all([
    bundleCli(out),
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

/**
 * The CLI and the prepare worker's thread as one bundle (shared chunks, each command family still
 * loaded on demand) in `npm run build`'s layout (dist/src), so the CLI finds migrations/, contracts/
 * and public/ as a build does. Each source module keeps its own `import.meta.url` (the path its
 * file has in that layout: the paths it derives, such as the worker's `./worker-thread.js`, are a
 * build's). Packages are bundled too, CommonJS ones included (each child then reads a few chunks,
 * not ~700 CommonJS files Node resolves and scans one by one: ~0.15 s less CPU per start), except a
 * module that finds files beside it. How Node itself links the CommonJS packages a build imports is
 * checked on the file-by-file build (test/bin/lazy-commands.test.ts imports every module of it).
 */
async function bundleCli(out: string): Promise<void> {
  const src = path.join(REPO_ROOT, 'src');
  const outdir = path.join(out, 'dist', 'src');
  await build({
    entryPoints: ['bin/cli.ts', 'ingest/prepare/worker-thread.ts'].map((f) => path.join(src, f)),
    outbase: src,
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    // Node's resolution: no "module" condition, no "module" field.
    conditions: [],
    mainFields: ['main'],
    plugins: [keepImportMetaUrl(src, outdir), externalOwnLocation()],
    // A CommonJS module bundled into an ES module chunk still calls require() (Node's built-ins,
    // the modules kept external); under a name no module of src/ imports, as a chunk may import
    // createRequire itself.
    banner: {
      js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
    },
    ...NODE_ESM,
  });
  await writePackageScope(out);
}

/** Each src/ module's `import.meta.url` is the URL its file has in a file-by-file build. */
function keepImportMetaUrl(src: string, outdir: string): Plugin {
  return {
    name: 'keep-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
        if (!file.startsWith(src + path.sep)) return undefined;
        const built = path.join(outdir, path.relative(src, file)).replace(/\.ts$/, '.js');
        const contents = (await readFile(file, 'utf8')).replaceAll(
          'import.meta.url',
          JSON.stringify(pathToFileURL(built).href),
        );
        return { contents, loader: 'ts' };
      });
    },
  };
}

const BUILTINS = new Set(builtinModules);

/**
 * A package's module that finds files beside it (PGlite's WebAssembly and data files, static files
 * served from a package's directory, a worker started from its own file) stays external, imported
 * or required by its resolved path.
 */
function externalOwnLocation(): Plugin {
  return {
    name: 'external-own-location',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'resolving' || args.kind === 'entry-point') return undefined;
        if (BUILTINS.has(args.path) || args.path.startsWith('node:')) return undefined;
        const { path: resolved, errors } = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'resolving',
        });
        if (errors.length > 0 || !resolved.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        return readsOwnLocation(resolved) ? { path: resolved, external: true } : undefined;
      });
    },
  };
}

function readsOwnLocation(file: string): boolean {
  return (
    file.endsWith('.node') ||
    /import\.meta|__dirname|__filename|require\.resolve/.test(readFileSync(file, 'utf8'))
  );
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
  return new Uint8Array(await (await cloneableSnapshot(db)).arrayBuffer());
}
