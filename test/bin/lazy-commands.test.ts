import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transformCli } from '../helpers/cli-build.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

/**
 * A resolve hook (run in the loader thread) that prints every project module the CLI loads. The
 * CLI loads a command family's modules only when that family runs (src/bin/cli.ts): the indexer
 * then skips the simulator, the VIP tooling and the API app, ~0.9 s of CPU at every start.
 */
const HOOK = `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.includes('/dist/src/')) process.stderr.write('LOADED ' + r.url.split('/dist/src/')[1] + '\\n');
  return r;
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});`;

async function loadedModules(cli: string, args: string[]): Promise<{ loaded: string[]; stdout: string }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [
    '--import',
    `data:text/javascript,${encodeURIComponent(REGISTER)}`,
    cli,
    ...args,
  ]);
  return { loaded: [...stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!), stdout };
}

// A build of one module per file, as `npm run build` lays it out (the other files' CLI children
// run a bundle), in node_modules so that the packages resolve as from a build.
let dir: string;
let cli: string;
beforeAll(async () => {
  const cache = path.join(REPO_ROOT, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  dir = await mkdtemp(path.join(cache, 'ri-build-'));
  cli = await transformCli(dir);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * Imports every module of the build in one Node process, each on its own (the entry points, which
 * run a program when loaded, aside). The CLI children of the other files run a bundle, in which
 * esbuild links the CommonJS packages; here Node does, as for a user's build: a named import a
 * CommonJS package does not export to Node (its exports found by Node's lexer) fails here.
 */
const IMPORT_EVERY_MODULE = `
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const root = process.argv[1];
const entryPoints = new Set(['bin/cli.js', 'ingest/prepare/worker-thread.js']);
const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.js') && !entryPoints.has(f));
const failed = [];
for (const f of files.sort()) {
  try { await import(pathToFileURL(path.join(root, f)).href); } catch (err) { failed.push(f + ': ' + err.message); }
}
process.stdout.write(JSON.stringify({ imported: files.length, failed }));
`;

describe('a build run by Node', { timeout: 60_000 }, () => {
  it('links and loads every module, the CommonJS packages each imports included', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '--eval',
      IMPORT_EVERY_MODULE,
      path.dirname(path.dirname(cli)),
    ]);
    const { imported, failed } = JSON.parse(stdout) as { imported: number; failed: string[] };
    expect(failed).toEqual([]);
    expect(imported).toBeGreaterThan(300);
  });
});

describe('the CLI loads only the running command family', { timeout: 60_000 }, () => {
  it('indexer --help loads no simulator, VIP, API app or PGlite module', async () => {
    const { loaded } = await loadedModules(cli, ['indexer', '--help']);
    expect(loaded).toContain('bin/commands/ingest.js');
    expect(loaded.filter((m) => /^(sim|vip)\/|^api\/app\.js$|^store\/pglite\.js$/.test(m))).toEqual([]);
  });

  it('help for the whole CLI still lists every command', async () => {
    const { loaded, stdout } = await loadedModules(cli, ['--help']);
    for (const command of ['start', 'indexer', 'demo', 'migrate', 'api', 'sim', 'vip']) {
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(loaded).toEqual(
      expect.arrayContaining(['bin/commands/sim.js', 'bin/commands/vip.js', 'bin/commands/api.js']),
    );
  });
});
