import type { Queryable } from '../../src/store/driver/db.js';
import { packTxText, storedTxString } from '../../src/wire/tx-packing.js';

/**
 * Stored tx texts as tests read and plant them: a row holds its text in `data` or packed in
 * `data_packed` (docs/ingest.md §9.2), so SQL string functions cannot edit it in place.
 */
export async function storedTxTexts(
  db: Queryable,
  where = 'true',
  params: readonly unknown[] = [],
): Promise<{ sequence: number; data: string }[]> {
  const { rows } = await db.query<{ sequence: number; data: string | null; data_packed: Uint8Array | null }>(
    `SELECT sequence, data, data_packed FROM tx WHERE ${where} ORDER BY sequence`,
    params,
  );
  return rows.map((r) => ({ sequence: Number(r.sequence), data: storedTxString(r) }));
}

/** Rewrites the stored texts of the rows `where` selects, each kept in the form it is stored in. */
export async function editStoredTxs(
  db: Queryable,
  where: string,
  params: readonly unknown[],
  edit: (text: string) => string,
): Promise<void> {
  const { rows } = await db.query<{ sequence: number; packed: boolean }>(
    `SELECT sequence, data_packed IS NOT NULL AS packed FROM tx WHERE ${where}`,
    params,
  );
  const texts = new Map((await storedTxTexts(db, where, params)).map((r) => [r.sequence, r.data]));
  for (const row of rows) {
    const text = edit(texts.get(Number(row.sequence))!);
    await db.query(
      row.packed
        ? 'UPDATE tx SET data_packed = $2 WHERE sequence = $1'
        : 'UPDATE tx SET data = $2 WHERE sequence = $1',
      [row.sequence, row.packed ? packTxText(text) : text],
    );
  }
}

/** Every packed row's text back in `data`: the rows as a database before migration 0020 holds them. */
export async function unpackStoredTxs(db: Queryable): Promise<void> {
  for (const row of await storedTxTexts(db, 'data_packed IS NOT NULL')) {
    await db.query('UPDATE tx SET data = $2, data_packed = NULL WHERE sequence = $1', [
      row.sequence,
      row.data,
    ]);
  }
}
