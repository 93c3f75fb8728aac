import { describe, expect, it } from 'vitest';
import { accountBytesFromString, normaliseAccount, toBech32, tryNormaliseAccount } from './address.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('accountBytesFromString (docs/ingest.md §6.1)', () => {
  it('decodes bech32 with the configured prefix', () => {
    const addr = 'init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz';
    expect(hex(accountBytesFromString(addr, 'init'))).toBe('f39fd6e51aad88f6f4ce6ab8827279cfffb92266');
  });

  it('pads short hex to 20 bytes and collapses zero-padded 32-byte values', () => {
    expect(hex(accountBytesFromString('0x1', 'init'))).toBe('0'.repeat(39) + '1');
    const topic = '0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266';
    expect(hex(accountBytesFromString(topic, 'init'))).toBe('f39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(accountBytesFromString('0x', 'init')).toHaveLength(20);
    expect(accountBytesFromString('', 'init')).toHaveLength(20);
  });

  it('keeps 32-byte Move addresses and accepts bare hex', () => {
    const a = '597cd3f' + 'a'.repeat(56);
    expect(accountBytesFromString('0x' + a, 'init')).toHaveLength(32);
    expect(hex(accountBytesFromString(a.toUpperCase(), 'init'))).toBe('0' + a);
  });

  it('rejects wrong prefixes, too long hex and non-hex', () => {
    expect(() => accountBytesFromString('0x' + '1'.repeat(65), 'init')).toThrow(/invalid address/);
    expect(() => accountBytesFromString('0xzz', 'init')).toThrow(/invalid address/);
    expect(tryNormaliseAccount('cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu', 'init')).toBeUndefined();
    expect(() => accountBytesFromString('0X12', 'init')).toThrow();
  });

  it('round-trips through bech32', () => {
    const bytes = accountBytesFromString('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'init');
    expect(toBech32(bytes, 'init')).toBe('init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz');
    expect(normaliseAccount('init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz', 'init')).toBe(
      'init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz',
    );
  });
});
