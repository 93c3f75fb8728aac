import { AppError } from '../../shared/errors.js';
import type { AbciEvent } from './accounts.js';
import { goString, jsonbText } from './json-text.js';

/**
 * The per-tx JSON the API serves for a Cosmos tx (docs/api.md §5.2, docs/ingest.md §3.4),
 * assembled as text from pre-rendered pieces so the API can send it without re-serialising:
 *
 *   {"txhash","height","codespace","code","data","raw_log","logs","info","gas_wanted",
 *    "gas_used","tx","timestamp","events"}
 *
 * Top-level keys follow the API's struct order; `tx`, `events` and `logs` follow PostgreSQL
 * jsonb key order (what the reference API re-emits from its jsonb column). Strings are written
 * as Go's encoder writes them and NUL-sanitised.
 */

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
  readonly events?: readonly AbciEvent[] | null;
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
 * rejects the whole page otherwise (docs/api.md §0.8; e.g. IBC transfers with an empty memo).
 */
export function renderEventsJson(events: readonly AbciEvent[]): string {
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

function eventsJsonPlain(events: readonly AbciEvent[]): string {
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

function eventsJsonGo(events: readonly AbciEvent[]): string {
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
 * completed to the node's REST shape so legacy events follow docs/api.md §0.8 too.
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
