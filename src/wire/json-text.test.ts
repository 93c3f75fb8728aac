import { describe, expect, it } from 'vitest';
import { goString, jsonbText } from './json-text.js';

describe('jsonbText (API form of stored JSON)', () => {
  it('orders keys like jsonb: shorter first, then bytewise', () => {
    expect(jsonbText({ signatures: [], body: { memo: '' }, auth_info: { tip: null } })).toBe(
      '{"body":{"memo":""},"auth_info":{"tip":null},"signatures":[]}',
    );
    expect(jsonbText({ value: 'v', key: 'k', index: true })).toBe('{"key":"k","index":true,"value":"v"}');
    expect(jsonbText({ '@type': '/x', b: 1, a: [1, 'é'] })).toBe('{"a":[1,"é"],"b":1,"@type":"/x"}');
  });

  it('escapes like Go (HTML characters, line separators) and sanitises NUL textually', () => {
    expect(goString('<a&b>')).toBe('"\\u003ca\\u0026b\\u003e"');
    expect(goString('x\u2028y')).toBe('"x\\u2028y"');
    expect(goString('a\u0000b')).toBe('"a\uFFFDb"');
    // The textual rewrite also hits a literal backslash-u0000 (docs/ingest.md §3.4).
    expect(goString('a\\u0000b')).toBe('"a\\\\uFFFDb"');
    expect(goString('tab\tquote"')).toBe('"tab\\tquote\\""');
  });
});
