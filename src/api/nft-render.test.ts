import { describe, expect, it } from 'vitest';
import { toBech32 } from '../shared/address.js';
import { pageAccountText, rfc3339Nano } from './nft-render.js';

describe('rfc3339Nano', () => {
  it.each([
    ['2026-01-01T13:52:23.000000', '2026-01-01T13:52:23Z'],
    ['2026-01-01T13:52:23.120000', '2026-01-01T13:52:23.12Z'],
    ['2026-01-01T13:52:23.000001', '2026-01-01T13:52:23.000001Z'],
    ['2026-01-01T13:52:23', '2026-01-01T13:52:23Z'],
  ])('%s -> %s', (stored, text) => expect(rfc3339Nano(stored)).toBe(text));
});

describe('pageAccountText', () => {
  it('encodes each account of a page as bech32, and a missing one as ""', () => {
    const account = pageAccountText('init');
    const [a, b] = [Buffer.alloc(20, 1), Buffer.alloc(32, 2)];
    expect([account(a), account(b), account(a), account(null)]).toEqual([
      toBech32(a, 'init'),
      toBech32(b, 'init'),
      toBech32(a, 'init'),
      '',
    ]);
  });
});
