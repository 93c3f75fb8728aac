import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { it } from 'vitest';

/**
 * What a test needs from the machine beyond `npm ci` (a PostgreSQL server's binaries, a database,
 * a browser), and what happens when it is missing. By default such tests are skipped, so that
 * `npm test` runs anywhere; with RI_TEST_REQUIRE_ALL=1 (CI sets it in .ci/run) a missing one is a
 * failure, so a CI image without them cannot go green having run none of those tests.
 */

const run = promisify(execFile);
type Env = Record<string, string | undefined>;

export interface Requirement {
  /** What is needed, e.g. "PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup)". */
  name: string;
  found: boolean;
  /** Where it was found, or where it was looked for and how to provide it. */
  detail: string;
}

/** True when RI_TEST_REQUIRE_ALL=1: missing requirements fail instead of skipping. */
export function requireAll(env: Env = process.env): boolean {
  return env.RI_TEST_REQUIRE_ALL === '1';
}

export type RequirementOutcome = 'run' | 'skip' | 'fail';

export function requirementOutcome(req: Requirement, required: boolean): RequirementOutcome {
  if (req.found) return 'run';
  return required ? 'fail' : 'skip';
}

export function missingRequirementMessage(req: Requirement): string {
  return `${req.name} is missing: ${req.detail}`;
}

/**
 * For `describe.runIf(needs(req))(…)`: true when `req` is met. When it is not, the suite is
 * skipped (listed as skipped), or, with RI_TEST_REQUIRE_ALL=1, a test that fails naming what is
 * missing is registered in its place.
 */
export function needs(
  req: Requirement,
  env: Env = process.env,
  register: (name: string, fn: () => void) => void = it,
): boolean {
  const outcome = requirementOutcome(req, requireAll(env));
  if (outcome === 'fail') {
    register(`requires ${req.name}`, () => {
      throw new Error(`RI_TEST_REQUIRE_ALL=1 and ${missingRequirementMessage(req)}`);
    });
  }
  return outcome === 'run';
}

/** The PostgreSQL URL the PostgreSQL variants of the storage, ingest and API suites run on. */
export function databaseUrlRequirement(env: Env = process.env): Requirement {
  const url = env.TEST_DATABASE_URL;
  return {
    name: 'TEST_DATABASE_URL',
    found: Boolean(url),
    detail: url
      ? 'set'
      : 'set it (e.g. postgres://postgres@127.0.0.1:5432/test) so every storage, ingest and API suite also runs on PostgreSQL',
  };
}

async function isExecutable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The first PATH entry holding an executable `name`. */
async function onPath(name: string, env: Env): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    if (await isExecutable(file)) return file;
  }
  return undefined;
}

export const PG_SERVER_BINARIES = ['initdb', 'pg_ctl', 'pg_basebackup'] as const;

async function hasServerBinaries(dir: string): Promise<boolean> {
  for (const bin of PG_SERVER_BINARIES) if (!(await isExecutable(path.join(dir, bin)))) return false;
  return true;
}

/** Debian and Ubuntu keep each server version in /usr/lib/postgresql/<major>/bin, off PATH. */
async function debianBinDirs(root = '/usr/lib/postgresql'): Promise<string[]> {
  const versions = await readdir(root).catch(() => [] as string[]);
  return versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(root, v, 'bin'));
}

/**
 * Where the server binaries are, in this order: PG_BIN_DIR when set (and only there, so pointing
 * it at a directory is a complete override); `pg_config --bindir`; the directory of `initdb` on
 * PATH; the newest Debian-layout version. No version is assumed.
 */
export async function pgServerRequirement(
  env: Env = process.env,
): Promise<Requirement & { binDir?: string }> {
  const name = `PostgreSQL server binaries (${PG_SERVER_BINARIES.join(', ')})`;
  if (env.PG_BIN_DIR !== undefined) {
    const found = await hasServerBinaries(env.PG_BIN_DIR);
    const detail = found ? env.PG_BIN_DIR : `not all in PG_BIN_DIR=${env.PG_BIN_DIR}`;
    return { name, found, detail, ...(found ? { binDir: env.PG_BIN_DIR } : {}) };
  }
  const candidates: string[] = [];
  const pgConfig = await onPath('pg_config', env);
  if (pgConfig) {
    const out = await run(pgConfig, ['--bindir']).then(
      (r) => r.stdout.trim(),
      () => '',
    );
    if (out) candidates.push(out);
  }
  // A PATH entry may be a symlink to initdb alone; its siblings are where it points.
  const initdb = await onPath('initdb', env);
  if (initdb) candidates.push(path.dirname(await realpath(initdb)));
  candidates.push(...(await debianBinDirs()));
  for (const dir of candidates) {
    if (await hasServerBinaries(dir)) return { name, found: true, detail: dir, binDir: dir };
  }
  const looked = candidates.length > 0 ? candidates.join(', ') : 'no pg_config or initdb on PATH';
  return {
    name,
    found: false,
    detail: `looked in ${looked}; install the PostgreSQL server package or set PG_BIN_DIR`,
  };
}

export const CHROMIUM_NAMES = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'chrome-headless-shell',
] as const;

/** A Chromium-family browser for browser tests: CHROMIUM_PATH when set (only that), else PATH. */
export async function chromiumRequirement(env: Env = process.env): Promise<Requirement & { path?: string }> {
  const name = 'a Chromium browser';
  if (env.CHROMIUM_PATH !== undefined) {
    const found = await isExecutable(env.CHROMIUM_PATH);
    const detail = found ? env.CHROMIUM_PATH : `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable`;
    return { name, found, detail, ...(found ? { path: env.CHROMIUM_PATH } : {}) };
  }
  for (const candidate of CHROMIUM_NAMES) {
    const file = await onPath(candidate, env);
    if (file) return { name, found: true, detail: file, path: file };
  }
  return {
    name,
    found: false,
    detail: `none of ${CHROMIUM_NAMES.join(', ')} on PATH; install chromium (Debian) or set CHROMIUM_PATH`,
  };
}
