import { describe, expect, it } from 'vitest';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { createPostgresDb } from './db.js';

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)('PostgreSQL pool with prepared statements (API sessions)', () => {
  it('reuses one named statement across parameters, and survives a migration that changes its rows', async () => {
    const { db: admin, url: dbUrl, dispose } = await createPostgresTestDb(url!, { migrate: false });
    const reader = createPostgresDb({ url: dbUrl, maxConnections: 1, preparedStatements: true });
    try {
      await admin.exec(
        'CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, $$a$$), (2, $$b$$)',
      );
      const sql = 'SELECT * FROM t WHERE id = $1';
      expect((await reader.query(sql, [1])).rows).toEqual([{ id: 1, v: 'a' }]);
      expect((await reader.query(sql, [2])).rows).toEqual([{ id: 2, v: 'b' }]);
      const prepared = await reader.query<{ n: number }>(
        "SELECT count(*)::int8 AS n FROM pg_prepared_statements WHERE statement = 'SELECT * FROM t WHERE id = $1'",
      );
      expect(prepared.rows[0]?.n).toBe(1);
      // The connection's cached plan now returns the wrong row type; the query must still answer.
      await admin.exec('ALTER TABLE t ADD COLUMN w int DEFAULT 7');
      expect((await reader.query(sql, [1])).rows).toEqual([{ id: 1, v: 'a', w: 7 }]);
    } finally {
      await reader.close();
      await dispose();
    }
  });
});
