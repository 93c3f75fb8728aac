import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { AppError } from '../errors.js';

/**
 * Account address (20 bytes) of a tx signer's public key, per the Cosmos SDK / Initia rules
 * (spec/indexer.md §3.4). Multisig (LegacyAminoPubKey) needs amino encoding of every member key
 * and is not supported: it raises `unsupported_pubkey` like any other unknown key type.
 */

export class PubKeyError extends AppError {
  constructor(code: 'unsupported_pubkey' | 'invalid_pubkey', message: string) {
    super(code, message);
    this.name = 'PubKeyError';
  }
}

export const SECP256K1_PUBKEY = '/cosmos.crypto.secp256k1.PubKey';
export const ETHSECP256K1_PUBKEY = '/initia.crypto.v1beta1.ethsecp256k1.PubKey';
export const ED25519_PUBKEY = '/cosmos.crypto.ed25519.PubKey';

export function addressFromPubKey(typeUrl: string, key: Uint8Array): Uint8Array {
  switch (typeUrl) {
    case SECP256K1_PUBKEY:
      if (key.length !== 33)
        throw new PubKeyError('invalid_pubkey', `secp256k1 key must be 33 bytes, got ${key.length}`);
      return ripemd160(sha256(key));
    case ETHSECP256K1_PUBKEY:
      return ethAddress(key);
    case ED25519_PUBKEY:
      if (key.length !== 32)
        throw new PubKeyError('invalid_pubkey', `ed25519 key must be 32 bytes, got ${key.length}`);
      return sha256(key).subarray(0, 20);
    default:
      throw new PubKeyError('unsupported_pubkey', `unsupported signer public key type ${typeUrl}`);
  }
}

function ethAddress(key: Uint8Array): Uint8Array {
  let uncompressed: Uint8Array;
  try {
    uncompressed = key.length === 65 ? key : secp256k1.Point.fromBytes(key).toBytes(false);
  } catch (cause) {
    throw new PubKeyError('invalid_pubkey', `ethsecp256k1 key is not a valid curve point: ${String(cause)}`);
  }
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/**
 * Signer derivation with a bounded cache keyed by the key's base64: the same few signers sign
 * most txs, and decompressing an ethsecp256k1 point costs far more than the rest of a decode.
 */
export function createSignerCache(limit = 10_000): (typeUrl: string, keyBase64: string) => Uint8Array {
  const cache = new Map<string, Uint8Array>();
  return (typeUrl, keyBase64) => {
    const cacheKey = `${typeUrl}|${keyBase64}`;
    const hit = cache.get(cacheKey);
    if (hit) return hit;
    const address = addressFromPubKey(typeUrl, Buffer.from(keyBase64, 'base64'));
    if (cache.size >= limit) cache.clear();
    cache.set(cacheKey, address);
    return address;
  };
}
