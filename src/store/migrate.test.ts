import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../test/helpers/db.js';
import { migrate } from './migrate.js';

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
});
