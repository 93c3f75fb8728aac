import { Type } from '@sinclair/typebox';
import { AppError } from '../shared/errors.js';
import { goString, jsonbText } from './json-text.js';
import { listEnvelope } from './pagination.js';
import { ref } from './schema.js';

/**
 * The Cosmos tx document (docs/api.md, tx.Tx): stored in `tx.data` as the exact text the API
 * serves, assembled from pre-rendered pieces so the API can send it without re-serialising.
 * Top-level keys follow TX_KEY_ORDER (the reference API's struct order); `tx`, `events` and
 * `logs` follow PostgreSQL jsonb key order (what the reference re-emits from its jsonb column).
 * Strings are written as Go's encoder writes them and NUL-sanitised.
 */

/**
 * Version of the stored text. Raise it when the renderer's output changes for rows already
 * stored; the store's re-render job then brings older rows up to it (docs/api.md).
 *  1: events in the reference's omit-empty form (no "value" / "attributes" when empty)
 *  2: "value" and "attributes" always written (what migration 0009 converted in place)
 *  3: format 2's text, stored packed in `tx.data_packed` (migration 0020, ./tx-packing.ts)
 */
export const TX_FORMAT_VERSION = 3;

export const TX_KEY_ORDER = [
  'txhash',
  'height',
  'codespace',
  'code',
  'data',
  'raw_log',
  'logs',
  'info',
  'gas_wanted',
  'gas_used',
  'tx',
  'timestamp',
  'events',
] as const;

// value and attributes are always present ("" / []), as in the node's REST answer.
const Attribute = Type.Object({
  key: Type.String(),
  index: Type.Optional(Type.Boolean({ description: 'present only when true' })),
  value: Type.String(),
});
const Event = Type.Object({ type: Type.String(), attributes: Type.Array(Attribute) });

export const Tx = Type.Object(
  {
    txhash: Type.String({ description: 'upper-case hex' }),
    height: Type.String(),
    codespace: Type.String(),
    code: Type.Integer(),
    data: Type.String({ description: 'upper-case hex' }),
    raw_log: Type.String(),
    logs: Type.Array(Type.Object({}, { additionalProperties: true })),
    info: Type.String(),
    gas_wanted: Type.String(),
    gas_used: Type.String(),
    tx: Type.Object(
      {
        body: Type.Object({}, { additionalProperties: true }),
        auth_info: Type.Object({}, { additionalProperties: true }),
        signatures: Type.Array(Type.String()),
      },
      { additionalProperties: true },
    ),
    timestamp: Type.String({ description: 'RFC 3339, nanoseconds' }),
    events: Type.Array(Event),
  },
  { $id: 'tx.Tx' },
);
export const TxsResponse = listEnvelope('tx.TxsResponse', 'txs', 'tx.Tx');
export const TxResponse = Type.Object({ tx: ref('tx.Tx') }, { $id: 'tx.TxResponse' });

/** An ABCI event as the node sends it (cmtjson omits empty fields, hence the optionals). */
export interface TxEvent {
  readonly type: string;
  readonly attributes?: readonly TxEventAttribute[] | null;
}
export interface TxEventAttribute {
  readonly key: string;
  readonly value?: string | null;
  readonly index?: boolean | null;
}

/** ExecTxResult as /block_results gives it (cmtjson omits zero fields, hence all optional). */
export interface TxResultLike {
  readonly code?: number | null;
  readonly codespace?: string | null;
  /** base64 */
  readonly data?: string | null;
  readonly log?: string | null;
  readonly info?: string | null;
  readonly gas_wanted?: string | number | null;
  readonly gas_used?: string | number | null;
  readonly events?: readonly TxEvent[] | null;
}

export interface TxResponseParts {
  /** UPPER hex tx hash. */
  readonly hash: string;
  readonly height: number | bigint | string;
  readonly result: TxResultLike;
  /** DecodedTx.restTxJson (or a REST fallback tx passed through jsonbText). */
  readonly restTxJson: string;
  /** Block time as CometBFT writes it (RFC 3339, UTC). */
  readonly blockTime: string;
  /** renderEventsJson(result.events), if already rendered. */
  readonly eventsJson?: string;
}

export function renderTxResponseJson(parts: TxResponseParts): string {
  const r = parts.result;
  const rawLog = r.log ?? '';
  return (
    `{"txhash":${goString(parts.hash)}` +
    `,"height":${goString(String(parts.height))}` +
    `,"codespace":${goString(r.codespace ?? '')}` +
    `,"code":${Number(r.code ?? 0)}` +
    `,"data":${goString(base64ToUpperHex(r.data ?? ''))}` +
    `,"raw_log":${goString(rawLog)}` +
    `,"logs":${legacyLogsJson(rawLog)}` +
    `,"info":${goString(r.info ?? '')}` +
    `,"gas_wanted":${goString(String(r.gas_wanted ?? '0'))}` +
    `,"gas_used":${goString(String(r.gas_used ?? '0'))}` +
    `,"tx":${parts.restTxJson}` +
    `,"timestamp":${goString(rfc3339Nano(parts.blockTime))}` +
    `,"events":${parts.eventsJson ?? renderEventsJson(r.events ?? [])}}`
  );
}

/**
 * ABCI events in the stored/API form: `{"type","attributes":[{"key","index","value"}]}` in jsonb
 * key order, with `index` only when true (as the reference writes it; clients treat it as
 * optional). Unlike the reference's omit-empty encoder, `value` and `attributes` are always
 * written (`""`, `[]`), as the node's REST answer does: Celatone's schema requires both and
 * rejects the whole page otherwise (docs/api.md; e.g. IBC transfers with an empty memo).
 */
export function renderEventsJson(events: readonly TxEvent[]): string {
  const fast = eventsJsonPlain(events);
  return NEEDS_GO_STRINGS.test(fast) ? eventsJsonGo(events) : fast;
}

/**
 * goString(s) differs from JSON.stringify(s) only when s holds `<`, `>`, `&`, U+2028, U+2029,
 * U+0000 or the text `\u0000`; JSON.stringify leaves the first five as they are and writes the
 * last two as `\u0000` / `\\u0000`. So text built with JSON.stringify that contains none of
 * these is exactly the goString rendering: one scan of the result instead of a test per string.
 */
const NEEDS_GO_STRINGS = /[<>&\u2028\u2029]|u0000/;

function eventsJsonPlain(events: readonly TxEvent[]): string {
  let out = '[';
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    out += `${i === 0 ? '' : ','}{"type":${JSON.stringify(event.type)},"attributes":[`;
    const attributes = event.attributes ?? [];
    for (let j = 0; j < attributes.length; j++) {
      const a = attributes[j]!;
      out +=
        `${j === 0 ? '' : ','}{"key":${JSON.stringify(a.key)}${a.index === true ? ',"index":true' : ''}` +
        `,"value":${JSON.stringify(a.value ?? '')}}`;
    }
    out += ']}';
  }
  return `${out}]`;
}

function eventsJsonGo(events: readonly TxEvent[]): string {
  const out: string[] = [];
  for (const event of events) {
    const rendered = (event.attributes ?? []).map(
      (a) =>
        `{"key":${goString(a.key)}${a.index === true ? ',"index":true' : ''},"value":${goString(a.value ?? '')}}`,
    );
    out.push(`{"type":${goString(event.type)},"attributes":[${rendered.join(',')}]}`);
  }
  return `[${out.join(',')}]`;
}

function base64ToUpperHex(data: string): string {
  return data === '' ? '' : Buffer.from(data, 'base64').toString('hex').toUpperCase();
}

/**
 * sdk.ParseABCILogs: the legacy JSON log array, else [] (the usual case on SDK 0.50). The SDK
 * wrote that array with omit-empty tags (no `log`, `type` or `value` when empty); each entry is
 * completed to the node's REST shape so legacy events get the same completion.
 */
function legacyLogsJson(rawLog: string): string {
  if (!rawLog.startsWith('[')) return '[]';
  try {
    const parsed: unknown = JSON.parse(rawLog);
    return Array.isArray(parsed) ? jsonbText(parsed.map(completeLegacyLog)) : '[]';
  } catch {
    return '[]';
  }
}

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Fills the fields an omit-empty encoder left out; anything else is kept as the chain wrote it. */
function completeLegacyLog(entry: unknown): unknown {
  if (!isObject(entry)) return entry;
  const events = arrayOf(entry['events']).map((e) =>
    isObject(e)
      ? {
          ...e,
          type: e['type'] ?? '',
          attributes: arrayOf(e['attributes']).map((a) =>
            isObject(a) ? { ...a, key: a['key'] ?? '', value: a['value'] ?? '' } : a,
          ),
        }
      : e,
  );
  return { ...entry, log: entry['log'] ?? '', events };
}

const RFC3339_RE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** Go's time.RFC3339Nano in UTC: fractional seconds with trailing zeros dropped. */
export function rfc3339Nano(time: string): string {
  const m = RFC3339_RE.exec(time);
  if (!m) throw new AppError('time_malformed', `block time ${JSON.stringify(time)} is not RFC 3339`);
  let base = m[1] ?? '';
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (m[3] !== 'Z') {
    // Re-express in UTC; whole seconds shift exactly, the fraction is kept as written.
    base = new Date(`${base}${m[3]}`).toISOString().slice(0, 19);
  }
  return `${base}${frac === '' ? '' : `.${frac}`}Z`;
}

/**
 * SQL reading `code` and `gas_used` out of a stored tx text by position (strpos, no regex, no JSON
 * parse: ~6x cheaper than either, for the VIP score aggregations). Safe because the keys before
 * them in TX_KEY_ORDER hold only hex, digits, JSON-escaped strings or legacy logs with fixed keys,
 * so the first `,"code":` and the first `,"gas_used":"` are those keys; the check below fails at
 * load if the key order ever puts the user-written `tx` body before them.
 */
const POSITION_SAFE_KEYS = new Set([
  'txhash',
  'height',
  'codespace',
  'code',
  'data',
  'raw_log',
  'logs',
  'info',
  'gas_wanted',
]);
function keysBefore(key: (typeof TX_KEY_ORDER)[number]): readonly string[] {
  return TX_KEY_ORDER.slice(0, TX_KEY_ORDER.indexOf(key));
}
for (const key of ['code', 'gas_used'] as const) {
  const unsafe = keysBefore(key).filter((k) => !POSITION_SAFE_KEYS.has(k));
  if (unsafe.length > 0) throw new Error(`tx key order: ${key} follows ${unsafe.join(', ')}`);
}

/** The tx's result code (0 = success), read from the stored text by position. */
export function storedTxCode(text: string): number {
  return Number(valueAfter(text, ',"code":', ','));
}

/** The tx's gas used (a decimal integer), read from the stored text by position. */
export function storedTxGasUsed(text: string): bigint {
  return BigInt(valueAfter(text, ',"gas_used":"', '"'));
}

function valueAfter(text: string, marker: string, end: string): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new AppError('stored_tx_malformed', `stored tx text has no ${marker}`);
  const from = at + marker.length;
  const to = text.indexOf(end, from);
  return text.slice(from, to < 0 ? undefined : to);
}

/**
 * The renderer's input recovered from a stored tx text of any format version, so a stored row can
 * be rendered again in the current format (the store's re-render job). The `tx` body is kept as
 * the exact text stored (its key order and big numbers untouched). Where it ends: `timestamp` and
 * `events` are the last top-level keys, and the last `,"events":[` is the top-level one (inside
 * events only type/key/value/index keys occur, and string content has `\"` where the text has `"`).
 * The first `,"tx":` is the top-level one: the keys before it are those of POSITION_SAFE_KEYS.
 */
export function txPartsFromStored(text: string): TxResponseParts {
  const txStart = text.indexOf(',"tx":');
  const eventsAt = text.lastIndexOf(',"events":[');
  const timestampAt = text.lastIndexOf(',"timestamp":"', eventsAt);
  if (txStart < 0 || eventsAt < 0 || timestampAt < txStart || !text.endsWith(']}')) {
    throw new AppError('stored_tx_malformed', `stored tx text is not a tx document: ${text.slice(0, 80)}`);
  }
  const head = JSON.parse(`${text.slice(0, txStart)}}`) as Record<string, string | number>;
  const hexData = String(head['data'] ?? '');
  return {
    hash: String(head['txhash']),
    height: String(head['height']),
    result: {
      code: Number(head['code']),
      codespace: String(head['codespace']),
      data: hexData === '' ? '' : Buffer.from(hexData, 'hex').toString('base64'),
      log: String(head['raw_log']),
      info: String(head['info']),
      gas_wanted: String(head['gas_wanted']),
      gas_used: String(head['gas_used']),
      events: JSON.parse(text.slice(eventsAt + ',"events":'.length, -1)) as TxEvent[],
    },
    restTxJson: text.slice(txStart + ',"tx":'.length, timestampAt),
    blockTime: JSON.parse(text.slice(timestampAt + ',"timestamp":'.length, eventsAt)) as string,
  };
}

/**
 * The block time (`timestamp`) of a stored tx text, found as txPartsFromStored finds it (the last
 * key before the top-level `events`) without parsing the document: the account routes order txs
 * of several chains by it (docs/chains.md §4.1) and read it for every row of a page.
 */
export function storedTxTimestamp(text: string | Buffer): string {
  const eventsAt = text.lastIndexOf(',"events":[');
  const timestampAt = eventsAt < 0 ? -1 : text.lastIndexOf(',"timestamp":"', eventsAt);
  const start = timestampAt + ',"timestamp":"'.length;
  const end = eventsAt - 1;
  const quote = typeof text === 'string' ? text.charCodeAt(end) : text[end];
  if (timestampAt < 0 || quote !== 0x22 || end < start) {
    const head = typeof text === 'string' ? text.slice(0, 80) : text.toString('utf8', 0, 80);
    throw new AppError('stored_tx_malformed', `stored tx text is not a tx document: ${head}`);
  }
  return typeof text === 'string' ? text.slice(start, end) : text.toString('latin1', start, end);
}

/**
 * A stored tx text with its `tx` piece (the REST proto-JSON) replaced and every other byte kept:
 * how a tx stored undecoded is re-rendered once a registry knows its types (docs/api.md §14).
 */
export function replaceStoredRestTx(text: string, restTxJson: string): string {
  const txStart = text.indexOf(',"tx":');
  const timestampAt = text.lastIndexOf(',"timestamp":"', text.lastIndexOf(',"events":['));
  if (txStart < 0 || timestampAt < txStart) {
    throw new AppError('stored_tx_malformed', `stored tx text is not a tx document: ${text.slice(0, 80)}`);
  }
  return text.slice(0, txStart + ',"tx":'.length) + restTxJson + text.slice(timestampAt);
}
