import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toBech32 } from '../address.js';
import {
  ED25519_PUBKEY,
  PubKeyError,
  SECP256K1_PUBKEY,
  addressFromPubKey,
  multisigAddress,
} from './signer.js';

const b64 = (s: string) => Buffer.from(s, 'base64');

describe('signer addresses', () => {
  it('derives ethsecp256k1 (keccak) for the test mnemonic key', () => {
    // initia.js MnemonicKey index 0 of "test … junk": 0xf39f…2266 = init17w0a…pqz.
    const key = b64('A4MYU1tUEF1Keq5gwI/EX5aHGBtP38YlvRp1P6c5f+11');
    const address = addressFromPubKey('/initia.crypto.v1beta1.ethsecp256k1.PubKey', key);
    expect(Buffer.from(address).toString('hex')).toBe('f39fd6e51aad88f6f4ce6ab8827279cfffb92266');
  });

  it('derives secp256k1 as ripemd160(sha256(key))', () => {
    const key = b64('A1zIA//23mfmwrTq+fNkKNRBtYyomNhXdchYk2q0OB0P');
    const sha = createHash('sha256').update(key).digest();
    const want = createHash('ripemd160').update(sha).digest();
    expect(Buffer.from(addressFromPubKey(SECP256K1_PUBKEY, key))).toEqual(want);
  });

  it('derives ed25519 as sha256(key)[:20] and checks key lengths', () => {
    const key = Buffer.alloc(32, 7);
    expect(Buffer.from(addressFromPubKey(ED25519_PUBKEY, key))).toEqual(
      createHash('sha256').update(key).digest().subarray(0, 20),
    );
    expect(() => addressFromPubKey(ED25519_PUBKEY, Buffer.alloc(31))).toThrow(PubKeyError);
    expect(() =>
      addressFromPubKey('/initia.crypto.v1beta1.ethsecp256k1.PubKey', Buffer.alloc(33, 9)),
    ).toThrow(expect.objectContaining({ code: 'invalid_pubkey' }));
  });

  it('derives a multisig address from the amino encoding of its members', () => {
    const k1 = b64('A4MYU1tUEF1Keq5gwI/EX5aHGBtP38YlvRp1P6c5f+11');
    const k2 = b64('A1zIA//23mfmwrTq+fNkKNRBtYyomNhXdchYk2q0OB0P');
    const amino = Buffer.concat([
      Buffer.from('22c1f7e20802', 'hex'),
      Buffer.from('1226eb5ae98721', 'hex'),
      k1,
      Buffer.from('1226eb5ae98721', 'hex'),
      k2,
    ]);
    const want = createHash('sha256').update(amino).digest().subarray(0, 20);
    const got = multisigAddress({
      threshold: 2,
      members: [
        { typeUrl: SECP256K1_PUBKEY, key: k1 },
        { typeUrl: SECP256K1_PUBKEY, key: k2 },
      ],
    });
    expect(toBech32(got, 'init')).toBe(toBech32(want, 'init'));
  });

  it('rejects key types it cannot derive with unsupported_pubkey', () => {
    expect(() => addressFromPubKey('/cosmos.crypto.secp256r1.PubKey', Buffer.alloc(33))).toThrow(
      expect.objectContaining({ code: 'unsupported_pubkey' }),
    );
    expect(() =>
      multisigAddress({
        threshold: 1,
        members: [{ typeUrl: '/initia.crypto.v1beta1.ethsecp256k1.PubKey', key: Buffer.alloc(33) }],
      }),
    ).toThrow(PubKeyError);
  });
});
