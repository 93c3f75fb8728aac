import { hash } from 'node:crypto';

/**
 * Move object address derivations, verified against real events (docs/node-data.md §1.5):
 * named objects use scheme 0xFE, primary stores use 0xFC over two padded addresses.
 */

const OBJECT_FROM_SEED = 0xfe;
const PRIMARY_STORE = 0xfc;

export function pad32(address: Uint8Array): Uint8Array {
  if (address.length === 32) return address;
  const out = new Uint8Array(32);
  out.set(address, 32 - address.length);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Native SHA3-256 (OpenSSL), returned as a plain Uint8Array like the noble hashes. */
function sha3_256(data: Uint8Array): Uint8Array {
  return new Uint8Array(hash('sha3-256', data, 'buffer'));
}

const MOVE_STD = pad32(Uint8Array.of(1));
const utf8 = new TextEncoder();

/** Coin metadata object of a denom: sha3_256(pad32(0x1) ‖ denom ‖ 0xFE). */
export function coinMetadata(denom: string): Uint8Array {
  return sha3_256(concat([MOVE_STD, utf8.encode(denom), Uint8Array.of(OBJECT_FROM_SEED)]));
}

/** Primary fungible store: sha3_256(pad32(owner) ‖ pad32(metadata) ‖ 0xFC). */
export function primaryStore(owner: Uint8Array, metadata: Uint8Array): Uint8Array {
  return sha3_256(concat([pad32(owner), pad32(metadata), Uint8Array.of(PRIMARY_STORE)]));
}

/** Collection object: sha3_256(pad32(creator) ‖ name ‖ 0xFE). */
export function collectionAddress(creator: Uint8Array, name: string): Uint8Array {
  return sha3_256(concat([pad32(creator), utf8.encode(name), Uint8Array.of(OBJECT_FROM_SEED)]));
}

/** NFT object: sha3_256(pad32(creator) ‖ "<collection name>::<token id>" ‖ 0xFE). */
export function nftAddress(creator: Uint8Array, collectionName: string, tokenId: string): Uint8Array {
  return sha3_256(
    concat([pad32(creator), utf8.encode(`${collectionName}::${tokenId}`), Uint8Array.of(OBJECT_FROM_SEED)]),
  );
}

/**
 * Short forms of addresses the generator reuses (keyring, stores, metadata), by identity. A pure
 * memo: entries hold no state of their own and disappear with their key.
 */
const shortForms = new WeakMap<Uint8Array, string>();

/** Move's short form: 0x + hex with leading zeros trimmed ("0x0" stays "0x0"). */
export function shortHex(address: Uint8Array): string {
  let text = shortForms.get(address);
  if (text === undefined) {
    const trimmed = Buffer.from(address).toString('hex').replace(/^0+/, '');
    text = '0x' + (trimmed === '' ? '0' : trimmed);
    shortForms.set(address, text);
  }
  return text;
}
