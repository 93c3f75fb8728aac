import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTestDb } from '../../../test/helpers/db.js';
import { databaseUrlRequirement, needs } from '../../../test/helpers/requirements.js';
import { createPostgresDb, type Db } from './db.js';

const url = process.env.TEST_DATABASE_URL;

/** ~200 KB: several socket reads, with 2-, 3- and 4-byte characters across their boundaries. */
const BIG = `x${'é漢😀'.repeat(20_000)}`;

describe.runIf(needs(databaseUrlRequirement()))('PostgreSQL pool with text columns as bytes', () => {
  let admin: Db;
  let reader: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const created = await createPostgresTestDb(url!, { migrate: false });
    ({ db: admin, dispose } = created);
    // One connection: the bytes and the text statements run on the same parser.
    reader = createPostgresDb({
      url: created.url,
      maxConnections: 1,
      preparedStatements: true,
      textAsBytes: true,
    });
    await admin.exec(
      `CREATE TABLE t (id int8 PRIMARY KEY, v text, n numeric);
       INSERT INTO t VALUES (1, 'café', 1.50), (2, NULL, 2), (3, '${BIG}', 3)`,
    );
  });
  afterAll(async () => {
    await reader?.close();
    await dispose?.();
  });

  const sql = 'SELECT id, v, n FROM t WHERE id <= $1 ORDER BY id';

  it('hands text columns over as their UTF-8 bytes, other columns parsed as usual', async () => {
    const { rows } = await reader.queryBytes!<{ id: number; v: Buffer | null; n: string }>(sql, [3]);
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(rows[0]?.v).toEqual(Buffer.from('café'));
    expect(rows[1]?.v).toBeNull();
    expect(Buffer.isBuffer(rows[2]?.v) && rows[2].v.equals(Buffer.from(BIG))).toBe(true);
    expect(rows.map((r) => r.n)).toEqual(['1.50', '2', '3']);
  });

  it('leaves the same statement through query() as text, before and after a bytes run', async () => {
    const before = await reader.query<{ v: unknown }>(sql, [1]);
    await reader.queryBytes!(sql, [3]);
    const after = await reader.query<{ v: unknown }>(sql, [3]);
    expect(before.rows[0]?.v).toBe('café');
    expect(after.rows.map((r) => r.v)).toEqual(['café', null, BIG]);
    // A boolean where the bytes statement had its text column: parsed from its text, not bytes.
    await reader.queryBytes!(sql, [1]);
    const flags = await reader.query('SELECT v, id > 0 AS b FROM t WHERE id = 1');
    expect(flags.rows).toEqual([{ v: 'café', b: true }]);
  });

  it('an error in the middle of a bytes statement rejects it and leaves the connection usable', async () => {
    // Rows 1 and 2 are sent before row 3 divides by zero.
    const failing = 'SELECT v, 1 / (3 - id) AS q FROM t ORDER BY id';
    await expect(reader.queryBytes!(failing)).rejects.toMatchObject({ code: 'db_error' });
    expect((await reader.query<{ v: unknown }>(sql, [1])).rows).toEqual([{ id: 1, v: 'café', n: '1.50' }]);
    const again = await reader.queryBytes!<{ v: Buffer }>(sql, [1]);
    expect(again.rows[0]?.v).toEqual(Buffer.from('café'));
  });
});
