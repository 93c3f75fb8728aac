import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { AppError } from '../shared/errors.js';
import { TX_DICTIONARY_V1 } from './tx-dictionary-v1.js';

/**
 * How a tx text is stored (docs/ingest.md §9.2): `tx.data_packed` holds one byte, the version of
 * the preset dictionary, then the text's UTF-8 bytes deflated (raw deflate) with that dictionary.
 * Small enough to stay in the table's pages (no TOAST). Rows stored before migration 0020 keep
 * their text in `tx.data` until the re-render job packs them; a row holds one or the other.
 * A later dictionary is a new version beside this one: every version ever shipped stays readable.
 */
export const TX_DICTIONARY_VERSION = 1;

const DICTIONARIES = new Map<number, Buffer>([[1, Buffer.from(TX_DICTIONARY_V1, 'utf8')]]);

/** A stored tx row's text columns, as the drivers return them. */
export interface StoredTxColumns<Text> {
  data: Text | null;
  data_packed: Uint8Array | null;
}

/** The select list of a tx row's text (`alias.` prefixed when given). */
export function txTextColumns(alias = ''): string {
  const p = alias === '' ? '' : `${alias}.`;
  return `${p}data, ${p}data_packed`;
}

/**
 * The packed bytes of a text, in a buffer of their own (not a slice of Node's shared pool), so a
 * prepare worker posts just these bytes to the committing thread.
 */
export function packTxText(text: string): Buffer {
  const dictionary = DICTIONARIES.get(TX_DICTIONARY_VERSION)!;
  const body = deflateRawSync(text, { dictionary });
  const packed = Buffer.alloc(body.length + 1);
  packed[0] = TX_DICTIONARY_VERSION;
  body.copy(packed, 1);
  return packed;
}

/** The UTF-8 bytes of a packed text. */
export function unpackTxText(packed: Uint8Array): Buffer {
  const dictionary = DICTIONARIES.get(packed[0] ?? 0);
  if (!dictionary) {
    throw new AppError('stored_tx_malformed', `stored tx is packed with unknown dictionary ${packed[0]}`);
  }
  return inflateRawSync(packed.subarray(1), { dictionary });
}

/** A row's text: its UTF-8 bytes when packed, else `data` as the driver gave it. */
export function storedTxText<Text>(row: StoredTxColumns<Text>): Text | Buffer {
  if (row.data_packed !== null) return unpackTxText(row.data_packed);
  if (row.data === null)
    throw new AppError('stored_tx_malformed', 'stored tx has neither text nor packed text');
  return row.data;
}

/** A row's text as a string (jobs and checks that parse it). */
export function storedTxString(row: StoredTxColumns<string | Uint8Array>): string {
  const text = storedTxText(row);
  return typeof text === 'string' ? text : Buffer.from(text).toString('utf8');
}
