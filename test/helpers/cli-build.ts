import { build } from 'esbuild';
import { readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './repo-root.js';

/** What the test builds of the CLI emit: ES modules for the Node versions package.json's engines allow. */
export const NODE_ESM = { format: 'esm', platform: 'node', target: 'node20', logLevel: 'error' } as const;

/**
 * Beside a build in `npm run build`'s layout (`out/dist/src`): an ES module package scope (inside
 * node_modules Node sees none) and the directories the CLI reads at run time, as a build finds them.
 */
export async function writePackageScope(out: string): Promise<void> {
  await writeFile(path.join(out, 'package.json'), '{ "type": "module" }\n');
  for (const dir of ['migrations', 'contracts', 'public'])
    await symlink(path.join(REPO_ROOT, dir), path.join(out, dir));
}

/**
 * src/ transformed file by file (what tsx does on the fly, one module per file) in `npm run
 * build`'s layout under `out`; returns the CLI's entry point.
 */
export async function transformCli(out: string): Promise<string> {
  const src = path.join(REPO_ROOT, 'src');
  const entries = await readdir(src, { recursive: true, withFileTypes: true });
  await build({
    entryPoints: entries
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
      .map((e) => path.join(e.parentPath, e.name)),
    outbase: src,
    outdir: path.join(out, 'dist', 'src'),
    ...NODE_ESM,
  });
  await writePackageScope(out);
  return path.join(out, 'dist', 'src', 'bin', 'cli.js');
}
