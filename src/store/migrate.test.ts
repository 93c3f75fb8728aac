import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../test/helpers/db.js';
import { InputError } from '../shared/errors.js';
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
});
