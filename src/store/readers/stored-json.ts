import { storedTxText, txTextColumns } from '../../wire/tx-packing.js';

/** Stored, already-rendered JSON: as text, or as its UTF-8 bytes straight from the driver. */
export type JsonText = string | Buffer;

/** A row of a table of stored JSON: Cosmos txs may hold theirs packed (docs/ingest.md §9.2). */
export interface StoredTextRow {
  data: JsonText | null;
  data_packed?: Uint8Array | null;
}

/** The select list of a stored-JSON table's text (`alias.` prefixed when given). */
export function storedTextColumns(table: 'tx' | 'evm_tx' | 'evm_internal_tx', alias = ''): string {
  if (table === 'tx') return txTextColumns(alias);
  return alias === '' ? 'data' : `${alias}.data`;
}

/** The row's JSON: unpacked (its UTF-8 bytes) when packed, else as stored. */
export function storedText(row: StoredTextRow): JsonText {
  return storedTxText({ data: row.data, data_packed: row.data_packed ?? null });
}
