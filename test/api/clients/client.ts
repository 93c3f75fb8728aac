import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { getAddress } from 'viem';
import { expect } from 'vitest';
import type { z } from 'zod';
import { accountBytesFromString, toBech32 } from '../../../src/shared/address.js';
import type { VmType } from '../../../src/sim/types.js';
import type { ClientApi } from './chain.js';

/**
 * How the two clients talk to the API: query strings built the way axios (Celatone) and ky
 * (InterwovenKit) build them, every page parsed with the client's schema, "load more" followed
 * until the answer says there is no more, and the address forms each client sends.
 */

export type Params = Record<string, string | number | boolean | undefined>;

/** axios drops undefined parameters and stringifies the rest; ky keeps empty strings. */
export function withQuery(path: string, params: Params): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) query.append(name, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** One GET that must answer 200 and satisfy the client's schema (the client rejects it otherwise). */
export async function fetchParsed<S extends z.ZodType>(
  h: ClientApi,
  path: string,
  params: Params,
  schema: S,
): Promise<z.infer<S>> {
  const url = withQuery(path, params);
  const res = await h.get(url);
  expect(res.status, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
  const parsed = schema.safeParse(res.json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`);
    expect.fail(`${url}: the client's schema rejects the answer: ${issues.join('; ')}`);
  }
  return parsed.data;
}

interface Paged {
  pagination: { next_key: string | null } | null;
}

/**
 * The clients' "load more": send the key of the previous page while it is truthy (Celatone:
 * `if (res.pagination.nextKey)`, InterwovenKit: `nextKey ? fetchPage(…) : done`). `rewriteKey`
 * is what the client does to a key before sending it back.
 */
export async function followPages<S extends z.ZodType<Paged>>(
  h: ClientApi,
  path: string,
  params: Params,
  schema: S,
  options: { rewriteKey?: (key: string) => string; maxPages?: number } = {},
): Promise<z.infer<S>[]> {
  const pages: z.infer<S>[] = [];
  let key: string | undefined;
  do {
    const sent =
      key === undefined ? params : { ...params, 'pagination.key': options.rewriteKey?.(key) ?? key };
    const page = await fetchParsed(h, path, sent, schema);
    pages.push(page);
    key = page.pagination?.next_key || undefined;
    expect(pages.length, `${path}: more pages than rows`).toBeLessThanOrEqual(options.maxPages ?? 500);
  } while (key !== undefined);
  return pages;
}

// ---------------------------------------------------------------- address forms

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
export const bytesOf = (address: string) => accountBytesFromString(address, 'init');
export const bech32Of = (address: string) => toBech32(bytesOf(address), 'init');

/** Celatone's unpadHexAddress (src/lib/utils/address.ts): leading zero digits dropped. */
export const unpaddedHex = (address: string) => `0x${hexOf(bytesOf(address)).replace(/^0+/, '')}`;

/** EIP-55 mixed case, as Celatone shows and sends EVM addresses. */
export const checksummed = (address: string) => getAddress(`0x${hexOf(bytesOf(address)).slice(-40)}`);

/**
 * The account text Celatone puts in a path: unpadded hex on Move (its HexAddr), checksummed hex
 * on EVM, bech32 on Wasm.
 */
export function celatoneAccount(vm: VmType, address: string): string {
  if (vm === 'move') return unpaddedHex(address);
  if (vm === 'evm') return checksummed(address);
  return bech32Of(address);
}

/** The same account, whatever form either side wrote it in. */
export const sameAccount = (a: string, b: string) => hexOf(bytesOf(a)) === hexOf(bytesOf(b));

/**
 * The account a signer's public key stands for, derived as Celatone's
 * convertAccountPubkeyToAccountAddress and InterwovenKit's AddressUtils.fromPublicKey do (written
 * here from the key algorithms, not from the indexer's code).
 */
export function accountOfPubkey(pubkey: { '@type': string; key: string }): string {
  const key = Buffer.from(pubkey.key, 'base64');
  if (pubkey['@type'] === '/initia.crypto.v1beta1.ethsecp256k1.PubKey') {
    const uncompressed = secp256k1.Point.fromBytes(key).toBytes(false);
    return toBech32(keccak_256(uncompressed.subarray(1)).subarray(12), 'init');
  }
  if (pubkey['@type'] === '/cosmos.crypto.secp256k1.PubKey') {
    return toBech32(ripemd160(sha256(key)), 'init');
  }
  throw new Error(`no address derivation for ${pubkey['@type']}`);
}

/**
 * Celatone's incrementLastByte (src/lib/services/block/sequencer.ts): +1 on the key's last byte.
 * Its carry loop never runs (a Buffer byte wraps to 0 before it is tested), so neither does ours.
 */
export function incrementLastByte(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[bytes.length - 1] = (bytes.at(-1)! + 1) & 0xff;
  return bytes.toString('base64');
}
