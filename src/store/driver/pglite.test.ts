import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteDb } from './pglite.js';

describe('embedded database on a full disk', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-pglite-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses to start a write when DATA_DIR has too little space, and loses nothing', async () => {
    const dataDir = path.join(dir, 'data');
    const db = await createPgliteDb({ dataDir });
    await db.transaction((tx) => tx.exec('CREATE TABLE t (x int); INSERT INTO t VALUES (1)'));
    await db.close();

    // More than any disk has free: the guard must trip, before PGlite writes anything.
    const full = await createPgliteDb({ dataDir, minFreeBytes: Number.MAX_SAFE_INTEGER });
    try {
      await expect(full.transaction((tx) => tx.exec('INSERT INTO t VALUES (2)'))).rejects.toMatchObject({
        code: 'disk_full',
        message: expect.stringMatching(/free in DATA_DIR .* stopped before writing/),
      });
      expect((await full.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
    } finally {
      await full.close();
    }
  });

  it('names a data directory that cannot be created', async () => {
    const file = path.join(dir, 'a-file');
    await writeFile(file, 'x');
    await expect(createPgliteDb({ dataDir: path.join(file, 'data') })).rejects.toMatchObject({
      code: 'data_dir_not_writable',
    });
  });
});
