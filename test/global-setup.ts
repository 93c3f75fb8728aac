/**
 * Builds the CLI once per test run for the tests that start it as a child process (crash, restart,
 * startup errors ...). Started through tsx, every process took its ~300 modules through loader
 * hooks first: about 1 s more CPU per start than plain JavaScript, and the suite starts the CLI
 * ~100 times. esbuild transforms src/ file by file (what tsx does on the fly, so the code under
 * test is the same); type checking stays with `npm run lint`.
 */
import { build } from 'esbuild';
import { readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { databaseUrlRequirement, missingRequirementMessage, requireAll } from './helpers/requirements.js';

const root = fileURLToPath(new URL('..', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built `rollup-indexer` entry point: `node <cliPath> <command> …`. */
    cliPath: string;
  }
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
  project.provide('cliPath', path.join(out, 'dist', 'src', 'bin', 'cli.js'));
  return () => rm(out, { recursive: true, force: true });
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}
