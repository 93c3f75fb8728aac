import { describe, expect, it } from 'vitest';
import { toBech32 } from '../shared/address.js';
import { accountTextMemo } from './account-text.js';

describe('accountTextMemo', () => {
  it('encodes each account as bech32, a missing one as "", and views into larger buffers by their bytes', () => {
    const text = accountTextMemo('init');
    const [a, b] = [Buffer.alloc(20, 1), Buffer.alloc(32, 2)];
    const outer = Buffer.concat([Buffer.alloc(3, 9), a]);
    const inside = new Uint8Array(outer.buffer, outer.byteOffset + 3, 20);
    expect([text(a), text(b), text(inside), text(a), text(null)]).toEqual([
      toBech32(a, 'init'),
      toBech32(b, 'init'),
      toBech32(a, 'init'),
      toBech32(a, 'init'),
      '',
    ]);
  });

  it('keeps at most `capacity` accounts and still answers for the ones it let go', () => {
    const text = accountTextMemo('init', 2);
    const accounts = [1, 2, 3, 1].map((n) => Buffer.alloc(20, n));
    expect(accounts.map(text)).toEqual(accounts.map((a) => toBech32(a, 'init')));
  });
});
