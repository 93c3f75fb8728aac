import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { InputError } from '../../shared/errors.js';
import { migrate, migrationNames } from './migrate.js';

describe.each(testDbFactories())('migrate on $name', (factory) => {
  it('applies every migration once and is idempotent', async () => {
    const { db, dispose } = await factory.create();
    try {
      const again = await migrate(db);
      expect(again.applied).toEqual([]);
      const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      expect(rows.map((r) => r.name)[0]).toMatch(/^\d{8}_\d{4}_core\.sql$/);
      const tables = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('block','tx','tx_accounts','checkpoint')",
      );
      expect(tables.rows[0]?.n).toBe(4);
    } finally {
      await dispose();
    }
  });

  it('stops after the migration named by upTo, and a later run applies the rest', async () => {
    const names = await migrationNames();
    expect(names.length).toBeGreaterThan(2);
    const { db, dispose } = await factory.create({ upTo: names[1]! });
    try {
      const recorded = async () =>
        (await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map(
          (r) => r.name,
        );
      expect(await recorded()).toEqual(names.slice(0, 2));
      await expect(migrate(db, { upTo: 'no_such_migration.sql' })).rejects.toBeInstanceOf(InputError);
      expect((await migrate(db, { upTo: names[2]! })).applied).toEqual([names[2]]);
      expect((await migrate(db)).applied).toEqual(names.slice(3));
      expect(await recorded()).toEqual(names);
    } finally {
      await dispose();
    }
  });

  it('commits each migration alone: its locks end at its commit, a failing one rolls back alone', async () => {
    const { db, dispose } = await factory.create();
    const dir = await mkdtemp(path.join(tmpdir(), 'ri-migrations-'));
    try {
      // 1 takes ACCESS EXCLUSIVE (as an ALTER or DROP INDEX does); 2 fails if that lock is still
      // held by anyone, this session included (it would be, were 1 and 2 one transaction);
      // 3 fails. PGlite has no pg_locks entries to speak of, so 2 passes there by construction.
      await writeFile(
        path.join(dir, '0001_lock.sql'),
        'CREATE TABLE m_t (x int); LOCK TABLE m_t IN ACCESS EXCLUSIVE MODE;',
      );
      await writeFile(
        path.join(dir, '0002_check.sql'),
        `DO $$ BEGIN
           IF EXISTS (SELECT 1 FROM pg_locks WHERE relation = 'm_t'::regclass AND mode = 'AccessExclusiveLock')
           THEN RAISE EXCEPTION 'lock of 0001 still held'; END IF;
         END $$; CREATE TABLE m_u (x int);`,
      );
      await writeFile(path.join(dir, '0003_fails.sql'), 'CREATE TABLE m_v (x int); SELECT 1/0;');
      await expect(migrate(db, { dir })).rejects.toThrow();
      const recorded = await db.query<{ name: string }>(
        "SELECT name FROM schema_migrations WHERE name LIKE '000%' ORDER BY name",
      );
      expect(recorded.rows.map((r) => r.name)).toEqual(['0001_lock.sql', '0002_check.sql']);
      const tables = await db.query<{ t: string }>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_name IN ('m_t','m_u','m_v') ORDER BY 1",
      );
      expect(tables.rows.map((r) => r.t)).toEqual(['m_t', 'm_u']);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await dispose();
    }
  });
});
