import { ECDH } from 'node:crypto';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { AppError } from '../errors.js';
import { boundedMemo } from '../memo.js';
import { WIRE_LEN, WIRE_VARINT } from './schema.js';
import { WireReader, WireWriter } from './wire.js';

/**
 * Account address (20 bytes) of a tx signer's public key, per the Cosmos SDK / Initia rules
 * (docs/ingest.md §3.4): secp256k1, ethsecp256k1, ed25519, and multisig (LegacyAminoPubKey)
 * whose members are secp256k1 or ed25519 keys. Other types (secp256r1, multisig with
 * ethsecp256k1 members) raise `unsupported_pubkey`.
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
export const MULTISIG_PUBKEY = '/cosmos.crypto.multisig.LegacyAminoPubKey';

/** Amino type prefixes: sha256(name), skip zero bytes, skip 3, skip zero bytes, take 4. */
const AMINO_PREFIX: Record<string, Uint8Array> = {
  [SECP256K1_PUBKEY]: Uint8Array.from([0xeb, 0x5a, 0xe9, 0x87]),
  [ED25519_PUBKEY]: Uint8Array.from([0x16, 0x24, 0xde, 0x64]),
  [MULTISIG_PUBKEY]: Uint8Array.from([0x22, 0xc1, 0xf7, 0xe2]),
};

/** Decoded multisig key: threshold and member keys (type URL + raw key bytes). */
export interface MultisigKey {
  readonly threshold: number;
  readonly members: readonly { readonly typeUrl: string; readonly key: Uint8Array }[];
}

/**
 * The SDK's LegacyAminoPubKey.Address(): sha256 of the amino binary encoding, first 20 bytes.
 * Amino: prefix ‖ 0x08 uvarint(threshold) ‖ (0x12 len(member) member)*, member = prefix ‖ len ‖ key.
 * After the prefixes it is protobuf framing (fields 1 and 2), hence the WireWriter.
 */
export function multisigAddress(multisig: MultisigKey): Uint8Array {
  const w = new WireWriter();
  w.raw(AMINO_PREFIX[MULTISIG_PUBKEY] ?? new Uint8Array());
  w.tag(1, WIRE_VARINT);
  w.uint32(multisig.threshold);
  for (const member of multisig.members) {
    const prefix = AMINO_PREFIX[member.typeUrl];
    if (!prefix || member.typeUrl === MULTISIG_PUBKEY) {
      throw new PubKeyError('unsupported_pubkey', `unsupported multisig member key type ${member.typeUrl}`);
    }
    const encoded = new WireWriter();
    encoded.raw(prefix);
    encoded.lengthDelimited(member.key);
    w.tag(2, WIRE_LEN);
    w.lengthDelimited(encoded.finish());
  }
  return sha256(w.finish()).subarray(0, 20);
}

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

/**
 * A public key of a type this release does not know (docs/ingest.md §3.4): a type named like a
 * known one (`/<any package>.{secp256k1,ethsecp256k1,ed25519}.PubKey`, e.g. a later version of
 * Initia's ethsecp256k1) whose value holds the key in field 1, as the known types do, gives that
 * type's address; anything else gives undefined, never an error.
 */
export function addressFromUnknownPubKey(typeUrl: string, value: Uint8Array): Uint8Array | undefined {
  const algo = /\.(secp256k1|ethsecp256k1|ed25519)\.PubKey$/.exec(typeUrl)?.[1];
  if (!algo) return undefined;
  try {
    const reader = new WireReader(value);
    let key: Uint8Array | undefined;
    while (reader.pos < value.length) {
      const tag = reader.uint32();
      if (tag === ((1 << 3) | WIRE_LEN)) {
        const [start, end] = reader.lengthDelimited();
        key = value.subarray(start, end);
      } else reader.skip(tag & 7);
    }
    if (!key) return undefined;
    const known = { secp256k1: SECP256K1_PUBKEY, ethsecp256k1: ETHSECP256K1_PUBKEY, ed25519: ED25519_PUBKEY };
    return addressFromPubKey(known[algo as keyof typeof known], key);
  } catch {
    return undefined;
  }
}

/** Point decompression through OpenSSL: about 3x faster than a pure-JS square root. */
function ethAddress(key: Uint8Array): Uint8Array {
  let uncompressed: Uint8Array;
  try {
    if (key.length !== 33 && key.length !== 65) throw new Error(`length ${key.length}`);
    uncompressed = ECDH.convertKey(key, 'secp256k1', undefined, undefined, 'uncompressed') as Buffer;
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
  const derive = boundedMemo((cacheKey) => {
    const separator = cacheKey.indexOf('|');
    return addressFromPubKey(
      cacheKey.slice(0, separator),
      Buffer.from(cacheKey.slice(separator + 1), 'base64'),
    );
  }, limit);
  return (typeUrl, keyBase64) => derive(`${typeUrl}|${keyBase64}`);
}
