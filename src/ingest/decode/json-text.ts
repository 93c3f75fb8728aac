/**
 * JSON text exactly as the API sends stored blobs (spec/api.md §1.4, §5.2): PostgreSQL jsonb key
 * order (shorter keys first, then by bytes), re-encoded by Go's encoding/json (compact; `<`, `>`,
 * `&`, U+2028, U+2029 escaped), with the indexer's NUL sanitisation (spec/indexer.md §3.4)
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
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what must be found
const NEEDS_WORK = /[<>&\u2028\u2029\u0000]|\\u0000/;

export function sanitiseNul(text: string): string {
  if (!text.includes('\u0000') && !text.includes('\\u0000')) return text;
  return text.replaceAll('\u0000', '\uFFFD').replaceAll('\\u0000', '\\uFFFD');
}

/** A JSON string literal as Go would write it, after NUL sanitisation. */
export function goString(value: string): string {
  const quoted = JSON.stringify(NEEDS_WORK.test(value) ? sanitiseNul(value) : value);
  return NEEDS_WORK.test(quoted) ? quoted.replace(GO_ESCAPES, (c) => GO_ESCAPE_MAP[c] ?? c) : quoted;
}

/** jsonb orders object keys by length, then bytewise (UTF-8); ASCII keys compare as strings. */
export function compareJsonbKeys(a: string, b: string): number {
  const la = Buffer.byteLength(a);
  const lb = Buffer.byteLength(b);
  if (la !== lb) return la - lb;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
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
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  const ascii = keys.every((k) => /^[\x20-\x7e]*$/.test(k));
  keys.sort(ascii ? (a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0) : compareJsonbKeys);
  const parts: string[] = [];
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    parts.push(`${goString(k)}:${jsonbText(v)}`);
  }
  return `{${parts.join(',')}}`;
}
