import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'rollup-indexer';

let cached: string | undefined;

/**
 * The version in the project's package.json. Found by walking up from this module, because the
 * module sits at a different depth under tsx (src/shared) than in a build (dist/src/shared), and a
 * build may add a package.json of its own (only `{"type":"module"}`) on the way up.
 */
export function packageVersion(): string {
  cached ??= findPackageVersion(path.dirname(fileURLToPath(import.meta.url)));
  return cached;
}

function findPackageVersion(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = readManifest(path.join(dir, 'package.json'));
    if (manifest?.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    if (path.dirname(dir) === dir) throw new Error(`no package.json of ${PACKAGE_NAME} above ${start}`);
  }
}

function readManifest(file: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}
