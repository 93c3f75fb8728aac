/**
 * JSON helpers for the Wasm model: integers become bigint on parse (u64 beyond 2^53 stays exact,
 * and a quoted number stays a string so type errors surface like serde's), and bigint prints as
 * bare digits.
 */
const MARK = '@@u64:';

export function parseJsonWithBigInts(text: string): unknown {
  let out = '';
  let i = 0;
  let inString = false;
  while (i < text.length) {
    const c = text[i] as string;
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (c === '"') inString = false;
      i++;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      i++;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      const tok = m?.[0] ?? c;
      out += m && !m[1] && !m[2] ? `"${MARK}${tok}"` : tok;
      i += tok.length;
      continue;
    }
    out += c;
    i++;
  }
  return JSON.parse(out, (_k, v: unknown) =>
    typeof v === 'string' && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v,
  );
}

export function stringifyWithBigInts(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v}` : v)).replace(
    /"@@u64:(-?\d+)"/g,
    '$1',
  );
}
