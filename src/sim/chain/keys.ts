import { hash as oneShotHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { toBech32 } from '../../shared/address.js';

export type KeyType = 'secp256k1' | 'ethsecp256k1';

export const PUBKEY_TYPE_URL: Record<KeyType, string> = {
  secp256k1: '/cosmos.crypto.secp256k1.PubKey',
  ethsecp256k1: '/initia.crypto.v1beta1.ethsecp256k1.PubKey',
};

/** One simulated user: key material and every address form the generator needs. */
export interface SimAccount {
  index: number;
  keyType: KeyType;
  privateKey: Uint8Array;
  /** 33-byte compressed public key (what Any{PubKey}.key holds for both key types). */
  publicKey: Uint8Array;
  address: Uint8Array;
  bech32: string;
  /** 0x + 40 lower-case hex digits. */
  hex: string;
  accountNumber: number;
}

export function sha256(data: Uint8Array | string): Buffer {
  return oneShotHash('sha256', data, 'buffer');
}

/** Cosmos secp256k1 address: ripemd160(sha256(compressed pubkey)). */
export function cosmosAddress(publicKey: Uint8Array): Uint8Array {
  return ripemd160(sha256(publicKey));
}

/** Ethereum-style address: last 20 bytes of keccak256(uncompressed pubkey without 0x04). */
export function ethAddress(publicKey: Uint8Array): Uint8Array {
  const point = secp256k1.Point.fromBytes(publicKey);
  const uncompressed = point.toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/**
 * The simulator's user keys, derived from the seed. Every third account is a Cosmos secp256k1
 * key, the rest are ethsecp256k1 (the real fixtures hold both, ethsecp256k1 more often).
 */
export function createKeyring(seed: number, count: number, prefix: string): SimAccount[] {
  const accounts: SimAccount[] = [];
  for (let index = 0; index < count; index++) {
    const keyType: KeyType = index % 3 === 0 ? 'secp256k1' : 'ethsecp256k1';
    const privateKey = new Uint8Array(sha256(`rollup-sim/key/${seed}/${index}`));
    const publicKey = secp256k1.getPublicKey(privateKey, true);
    const address = keyType === 'secp256k1' ? cosmosAddress(publicKey) : ethAddress(publicKey);
    accounts.push({
      index,
      keyType,
      privateKey,
      publicKey,
      address,
      bech32: toBech32(address, prefix),
      hex: '0x' + Buffer.from(address).toString('hex'),
      accountNumber: index + 10,
    });
  }
  return accounts;
}

/** A module account address: sha256(name)[:20], as the SDK derives it. */
export function moduleAddress(name: string): Uint8Array {
  return sha256(name).subarray(0, 20);
}
