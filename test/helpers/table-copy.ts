import type { Db, Queryable } from '../../src/store/driver/db.js';
import { unpackTxText } from '../../src/wire/tx-packing.js';

/**
 * Generic row copies between two databases of one project, whatever their schema versions: what
 * exists is asked from information_schema, so no table or column is named here. Used to build a
 * database as an older release would have left it, from rows a newer one wrote.
 */

/** The project's tables (schema_migrations is the runner's own record, not data). */
export async function dataTables(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'
      ORDER BY table_name`,
  );
  return rows.map((r) => r.name);
}

/** Columns a row can be given values for: generated ones are computed by the database. */
async function writableColumns(db: Queryable, table: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => r.name);
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Copies every row of each table `to` has (and `from` has too) into `to`, in place of the rows it
 * held (a migration's seed rows), limited to the columns
 * both have, except `skip` tables. Identity values are kept as they are (OVERRIDING SYSTEM VALUE),
 * and each sequence both have is set where `from`'s stands, so ids handed out later are the ones
 * `from` handed out. Rows travel as JSON text (keys `to` lacks are ignored), which keeps bytea,
 * numeric and timestamps exact.
 */
export async function copyRows(
  from: Db,
  to: Db,
  options: { skip?: ReadonlySet<string> } = {},
): Promise<void> {
  const source = new Set(await dataTables(from));
  const tables = parentsFirst(
    (await dataTables(to)).filter((t) => source.has(t) && !options.skip?.has(t)),
    await foreignKeys(to),
  );
  await to.transaction(async (tx) => {
    // Rows a migration seeds (e.g. document_format's) are replaced by `from`'s, children first.
    for (const table of [...tables].reverse()) await tx.query(`DELETE FROM ${ident(table)}`);
    for (const table of tables) {
      const have = new Set(await writableColumns(from, table));
      const columns = (await writableColumns(tx, table)).filter((c) => have.has(c)).map(ident);
      const list = columns.join(', ');
      const { rows } = await from.query<{ rows: string }>(
        `SELECT coalesce(json_agg(t), '[]')::text AS rows FROM ${ident(table)} t`,
      );
      const json =
        have.has('data_packed') && !columns.includes(ident('data_packed'))
          ? unpackedRows(rows[0]!.rows)
          : rows[0]!.rows;
      await tx.query(
        `INSERT INTO ${ident(table)} (${list}) OVERRIDING SYSTEM VALUE
           SELECT ${list} FROM json_populate_recordset(NULL::${ident(table)}, $1::json)`,
        [json],
      );
    }
    await copySequences(from, tx);
  });
}

/**
 * Rows whose text is packed (tx, migration 0020) with the text in `data` instead: what a database
 * from before that migration, which has no `data_packed`, holds.
 */
function unpackedRows(json: string): string {
  const rows = JSON.parse(json) as { data: string | null; data_packed: string | null }[];
  for (const row of rows) {
    if (row.data_packed === null) continue;
    row.data = unpackTxText(Buffer.from(row.data_packed.slice(2), 'hex')).toString('utf8');
    row.data_packed = null;
  }
  return JSON.stringify(rows);
}

/** child -> parent for every foreign key between two tables. */
async function foreignKeys(db: Queryable): Promise<Array<{ child: string; parent: string }>> {
  const { rows } = await db.query<{ child: string; parent: string }>(
    `SELECT DISTINCT tc.table_name AS child, ccu.table_name AS parent
       FROM information_schema.table_constraints tc
       JOIN information_schema.constraint_column_usage ccu
         ON ccu.constraint_schema = tc.constraint_schema AND ccu.constraint_name = tc.constraint_name
      WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`,
  );
  return rows.filter((r) => r.child !== r.parent);
}

/** Tables ordered so that each comes after the tables its foreign keys name (the checks stay on). */
function parentsFirst(tables: string[], keys: Array<{ child: string; parent: string }>): string[] {
  const ordered: string[] = [];
  const visit = (table: string, path: string[]) => {
    if (ordered.includes(table) || !tables.includes(table)) return;
    if (path.includes(table)) throw new Error(`foreign keys form a cycle: ${[...path, table].join(' -> ')}`);
    for (const k of keys) if (k.child === table) visit(k.parent, [...path, table]);
    ordered.push(table);
  };
  for (const table of tables) visit(table, []);
  return ordered;
}

async function copySequences(from: Db, to: Queryable): Promise<void> {
  const names = async (db: Queryable) =>
    (
      await db.query<{ name: string }>(
        `SELECT sequence_name AS name FROM information_schema.sequences WHERE sequence_schema = current_schema()`,
      )
    ).rows.map((r) => r.name);
  const target = new Set(await names(to));
  for (const name of await names(from)) {
    if (!target.has(name)) continue;
    const { rows } = await from.query<{ last_value: number; is_called: boolean }>(
      `SELECT last_value, is_called FROM ${ident(name)}`,
    );
    const state = rows[0]!;
    await to.query('SELECT setval($1::regclass, $2, $3)', [ident(name), state.last_value, state.is_called]);
  }
}
