/**
 * JSON text exactly as the API sends stored blobs (docs/api.md §1.4, §5.2): PostgreSQL jsonb key
 * order (shorter keys first, then by bytes), re-encoded by Go's encoding/json (compact; `<`, `>`,
 * `&`, U+2028, U+2029 escaped), with the indexer's NUL sanitisation (docs/ingest.md §3.4)
 * applied to every string: U+0000 → U+FFFD and the text `\u0000` → `\uFFFD`.
 */

const GO_ESCAPES = /[<>&\u2028\u2029]/g;
const GO_ESCAPE_MAP: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
/** Characters after which JSON.stringify alone is not Go's output (NUL, `\u0000` text, HTML). */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what must be found
const SLOW_PATH = /[<>&\u2028\u2029\u0000\\]/;

export function sanitiseNul(text: string): string {
  if (!text.includes('\u0000') && !text.includes('\\u0000')) return text;
  return text.replaceAll('\u0000', '\uFFFD').replaceAll('\\u0000', '\\uFFFD');
}

/** A JSON string literal as Go would write it, after NUL sanitisation. */
export function goString(value: string): string {
  if (!SLOW_PATH.test(value)) return JSON.stringify(value);
  return JSON.stringify(sanitiseNul(value)).replace(GO_ESCAPES, (c) => GO_ESCAPE_MAP[c] ?? c);
}

/** jsonb orders object keys by length, then bytewise (UTF-8). */
export function compareJsonbKeys(a: string, b: string): number {
  const la = Buffer.byteLength(a);
  const lb = Buffer.byteLength(b);
  if (la !== lb) return la - lb;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** For ASCII keys UTF-16 length and order equal UTF-8 byte length and order. */
function compareAsciiKeys(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function allAscii(keys: string[]): boolean {
  for (const k of keys) {
    for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

export function jsonbText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return goString(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    default:
      break;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + jsonbText(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length > 1) keys.sort(allAscii(keys) ? compareAsciiKeys : compareJsonbKeys);
  let out = '{';
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${goString(k)}:${jsonbText(v)}`;
  }
  return `${out}}`;
}
