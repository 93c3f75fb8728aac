import { constants, createDeflateRaw, deflateRawSync, inflateRawSync, type DeflateRaw } from 'node:zlib';
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
  const fast = packByReusedDeflate(text);
  if (fast) return fast;
  const dictionary = DICTIONARIES.get(TX_DICTIONARY_VERSION)!;
  const body = deflateRawSync(text, { dictionary });
  const packed = Buffer.alloc(body.length + 1);
  packed[0] = TX_DICTIONARY_VERSION;
  body.copy(packed, 1);
  return packed;
}

/** `packTxText`'s fast path (exported for its test): undefined where it leaves a text to deflateRawSync. */
export function packByReusedDeflate(text: string): Buffer | undefined {
  return reusedDeflate()?.(Buffer.from(text, 'utf8'));
}

/** What `reusedDeflate` reads of a zlib stream: its native handle and the handle's out/in counts. */
interface DeflateInternals {
  _handle?: {
    writeSync?(
      flush: number,
      input: Buffer,
      inOff: number,
      inLen: number,
      out: Buffer,
      outOff: number,
      outLen: number,
    ): void;
    reset?(): void;
  };
  _writeState?: unknown;
}

/**
 * This thread's reused deflate: undefined until asked (and again after a failure), null where Node
 * lacks the internals.
 */
let reused: ((input: Buffer) => Buffer | undefined) | null | undefined;

/**
 * One raw-deflate stream per thread, primed with the dictionary and reset after each text: Node's
 * deflateRawSync builds a stream object and a zlib state per call, ~15 % of packing a 7 KB text.
 * It drives the stream's native handle (`_handle.writeSync`, `_writeState`, `_handle.reset`: what
 * deflateRawSync itself runs, though not public API). A reset stream is primed with the same
 * dictionary, so the bytes equal deflateRawSync's (tx-packing.test.ts); where the internals are
 * missing, or a text does not finish in one call or fails, deflateRawSync packs it.
 */
function reusedDeflate(): ((input: Buffer) => Buffer | undefined) | null {
  if (reused !== undefined) return reused;
  const stream: DeflateRaw = createDeflateRaw({ dictionary: DICTIONARIES.get(TX_DICTIONARY_VERSION)! });
  const { _handle: handle, _writeState: counts } = stream as unknown as DeflateInternals;
  if (!handle?.writeSync || !handle.reset || !(counts instanceof Uint32Array)) return (reused = null);
  const writeSync = handle.writeSync.bind(handle);
  const reset = handle.reset.bind(handle);
  // A zlib error destroys the stream (and emits 'error' later): that text goes the slow way and the
  // next one builds a new stream.
  stream.on('error', () => undefined);
  reused = (input) => {
    // Room for the deflate bound of any input (stored blocks at worst), so one call finishes.
    const out = Buffer.allocUnsafe(input.length + (input.length >> 10) + 64);
    writeSync(constants.Z_FINISH, input, 0, input.length, out, 1, out.length - 1);
    const [outLeft, inLeft] = counts;
    if (stream.destroyed) {
      reused = undefined;
      return undefined;
    }
    reset();
    if (inLeft !== 0 || outLeft === 0) return undefined;
    const packed = Buffer.alloc(out.length - outLeft!);
    out.copy(packed, 0, 0, packed.length);
    packed[0] = TX_DICTIONARY_VERSION;
    return packed;
  };
  return reused;
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
