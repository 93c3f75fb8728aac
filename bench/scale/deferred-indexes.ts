/**
 * The bulk builder's load-time trick (bench/scale/bulk.ts): the per-tx tables' indexes (primary
 * keys included) are dropped while their rows are COPYed in and built once at the end, by sort,
 * instead of being maintained row by row (the hash index on tx hashes alone costs a random page per
 * tx once it outgrows shared_buffers). Nothing the bulk writer runs during the load reads them: the
 * kept counts upsert into their own tables, whose keys stay. Each dropped index's DDL is kept in a
 * table of this database until it is built again, so an interrupted or crashed build resumes and
 * still ends with every index, named and defined as the migrations made it.
 */
import type pg from 'pg';

/** Tables that gain rows with every tx; the other tables are small or upserted into by key. */
const DEFERRED_TABLES = ['tx', 'tx_accounts', 'tx_account_msg_types', 'tx_msg_types'];
const PENDING = 'bench_bulk_deferred_index';

/** Drops the deferred tables' indexes, keeping their DDL (idempotent: a resume finds them dropped). */
export async function deferIndexes(client: pg.Client): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${PENDING} (name text PRIMARY KEY, ord int NOT NULL, ddl text NOT NULL)`,
    );
    // Primary keys first (as the migrations created them), then the other indexes.
    const { rows } = await client.query<{ name: string; ddl: string; drop: string }>(
      `SELECT i.relname AS name,
              CASE WHEN c.oid IS NULL THEN pg_get_indexdef(i.oid)
                   ELSE format('ALTER TABLE %I ADD CONSTRAINT %I %s', t.relname, c.conname, pg_get_constraintdef(c.oid))
              END AS ddl,
              CASE WHEN c.oid IS NULL THEN format('DROP INDEX %I', i.relname)
                   ELSE format('ALTER TABLE %I DROP CONSTRAINT %I', t.relname, c.conname)
              END AS drop
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         LEFT JOIN pg_constraint c ON c.conindid = i.oid AND c.conrelid = t.oid
        WHERE t.relnamespace = 'public'::regnamespace AND t.relname = ANY($1::text[])
        ORDER BY t.relname, c.oid IS NULL, i.relname`,
      [DEFERRED_TABLES],
    );
    let ord = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${PENDING}`)).rows[0]!.n;
    for (const r of rows) {
      await client.query(`INSERT INTO ${PENDING} (name, ord, ddl) VALUES ($1, $2, $3)`, [
        r.name,
        ord++,
        r.ddl,
      ]);
      await client.query(r.drop);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Builds every index `deferIndexes` dropped, one transaction each; returns the seconds it took. */
export async function buildDeferredIndexes(
  client: pg.Client,
  log: (message: string) => void,
): Promise<number> {
  const started = performance.now();
  const exists = await client.query(`SELECT to_regclass($1) IS NOT NULL AS e`, [PENDING]);
  if (!(exists.rows[0] as { e: boolean }).e) return 0;
  await client.query(`SET maintenance_work_mem = '1GB'`);
  const { rows } = await client.query<{ name: string; ddl: string }>(
    `SELECT name, ddl FROM ${PENDING} ORDER BY ord`,
  );
  for (const r of rows) {
    const at = performance.now();
    await client.query('BEGIN');
    try {
      await client.query(r.ddl);
      await client.query(`DELETE FROM ${PENDING} WHERE name = $1`, [r.name]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    log(`index ${r.name} built in ${((performance.now() - at) / 1000).toFixed(1)} s`);
  }
  await client.query(`DROP TABLE ${PENDING}`);
  await client.query('RESET maintenance_work_mem');
  return (performance.now() - started) / 1000;
}
