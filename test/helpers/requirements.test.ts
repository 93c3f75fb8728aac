import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumRequirement,
  databaseUrlRequirement,
  needs,
  pgServerRequirement,
  requireAll,
  type Requirement,
} from './requirements.js';

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'ri-req-')));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A directory holding executable shell scripts `name` that print `output`. */
async function binDir(name: string, scripts: Record<string, string>): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  for (const [file, output] of Object.entries(scripts)) {
    await writeFile(path.join(dir, file), `#!/bin/sh\necho '${output}'\n`);
    await chmod(path.join(dir, file), 0o755);
  }
  return dir;
}
const SERVER = { initdb: 'initdb', pg_ctl: 'pg_ctl', pg_basebackup: 'pg_basebackup' };

describe('the RI_TEST_REQUIRE_ALL switch', () => {
  it('is on only for "1"', () => {
    expect(requireAll({ RI_TEST_REQUIRE_ALL: '1' })).toBe(true);
    for (const value of [undefined, '', '0', 'true'])
      expect(requireAll({ RI_TEST_REQUIRE_ALL: value })).toBe(false);
  });

  it('a missing requirement skips without it and registers a failing test with it', () => {
    const missing: Requirement = { name: 'a thing', found: false, detail: 'looked in /nowhere' };
    const registered: { name: string; fn: () => void }[] = [];
    const register = (name: string, fn: () => void) => void registered.push({ name, fn });
    expect(needs(missing, {}, register)).toBe(false);
    expect(registered).toEqual([]);
    expect(needs(missing, { RI_TEST_REQUIRE_ALL: '1' }, register)).toBe(false);
    expect(registered.map((r) => r.name)).toEqual(['requires a thing']);
    expect(() => registered[0]!.fn()).toThrow(
      'RI_TEST_REQUIRE_ALL=1 and a thing is missing: looked in /nowhere',
    );
    const present = { ...missing, found: true };
    expect(needs(present, { RI_TEST_REQUIRE_ALL: '1' }, register)).toBe(true);
    expect(registered).toHaveLength(1);
  });

  it('TEST_DATABASE_URL is a requirement', () => {
    expect(databaseUrlRequirement({}).found).toBe(false);
    expect(databaseUrlRequirement({ TEST_DATABASE_URL: 'postgres://x@127.0.0.1/db' }).found).toBe(true);
  });
});

describe('finding the PostgreSQL server binaries without assuming a version', () => {
  it('PG_BIN_DIR is the only place looked when set: a directory without initdb is missing', async () => {
    const partial = await binDir('partial', { pg_ctl: '', pg_basebackup: '' });
    for (const dir of [path.join(root, 'no-such-dir'), partial]) {
      const req = await pgServerRequirement({ PG_BIN_DIR: dir, PATH: process.env.PATH });
      expect(req).toMatchObject({ found: false, detail: `not all in PG_BIN_DIR=${dir}` });
    }
    const full = await binDir('full', SERVER);
    expect(await pgServerRequirement({ PG_BIN_DIR: full })).toMatchObject({ found: true, binDir: full });
  });

  it('asks pg_config --bindir first, then takes the directory initdb on PATH links to', async () => {
    const server = await binDir('server-17', SERVER);
    const config = await binDir('config', { pg_config: server });
    expect(await pgServerRequirement({ PATH: config })).toMatchObject({ found: true, binDir: server });
    const linked = path.join(root, 'linked');
    await mkdir(linked);
    await symlink(path.join(server, 'initdb'), path.join(linked, 'initdb'));
    expect(await pgServerRequirement({ PATH: linked })).toMatchObject({ found: true, binDir: server });
  });
});

describe('finding a Chromium browser', () => {
  it('CHROMIUM_PATH when set (only there), else a known name on PATH', async () => {
    const missing = path.join(root, 'no-chromium');
    expect(await chromiumRequirement({ CHROMIUM_PATH: missing, PATH: process.env.PATH })).toMatchObject({
      found: false,
      detail: `CHROMIUM_PATH=${missing} is not an executable`,
    });
    const dir = await binDir('browser', { 'chromium-browser': '' });
    const onPath = await chromiumRequirement({ PATH: dir });
    expect(onPath).toMatchObject({ found: true, path: path.join(dir, 'chromium-browser') });
    expect((await chromiumRequirement({ PATH: path.join(root, 'empty') })).found).toBe(false);
  });
});
