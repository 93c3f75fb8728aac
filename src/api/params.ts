import { accountBytesFromString, tryAccountBytes } from '../shared/address.js';
import { InputError } from '../shared/errors.js';
import { atoi } from './pagination.js';

/** Path and filter parameters of docs/api.md §2.5, §2.6, §2.8–§2.10, with the reference's error texts. */

/** Height: base-10 int64 (`+7`, `007` fine), at least 1. Returned as a decimal string. */
export function parseHeight(raw: string): string {
  const value = atoi(raw);
  if (value === undefined) {
    throw new InputError(
      'invalid_height',
      `[INVALID_VALUE] invalid value for height: ${raw} (must be a valid integer)`,
    );
  }
  if (value < 1n) {
    throw new InputError(
      'invalid_height',
      `[INVALID_VALUE] invalid value for height: ${value.toString()} (must be a positive integer)`,
    );
  }
  return value.toString();
}

/** Account: bech32 with the chain prefix or hex, normalised to 20/32 bytes (docs/api.md §2.6). */
export function parseAccount(raw: string, prefix: string): Uint8Array {
  try {
    return accountBytesFromString(raw, prefix);
  } catch {
    throw new InputError(
      'invalid_account',
      `[INVALID_VALUE] invalid value for account: ${raw} (invalid address format)`,
    );
  }
}

/**
 * The routes whose last path parameter is percent-decoded, unlike the reference (docs/api.md §0.11):
 * the router refuses a malformed escape before any handler runs, and for these routes that 400
 * names the parameter.
 */
const DECODED_PARAMETERS = [{ prefix: '/indexer/nft/v1/collections/by_name/', parameter: 'name' }];

const malformedEscape = (parameter: string, raw: string) =>
  new InputError(
    'invalid_percent_encoding',
    `[INVALID_VALUE] invalid value for ${parameter}: ${raw} (malformed percent-encoding)`,
  );

/** A percent-encoded path segment decoded (`My%20Collection` → `My Collection`). */
export function decodePathSegment(raw: string, parameter: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw malformedEscape(parameter, raw);
  }
}

/** The parameter-naming error for a URL the router refused, when it is one of the decoding routes. */
export function malformedParameterError(url: string): InputError | undefined {
  const path = url.split('?', 1)[0] ?? '';
  // The router matches paths case-insensitively, so the prefix is compared the same way.
  const route = DECODED_PARAMETERS.find((r) => path.toLowerCase().startsWith(r.prefix));
  return route && malformedEscape(route.parameter, path.slice(route.prefix.length));
}

const HEX_RE = /^[0-9a-fA-F]*$/;

/** Tx hash: one leading lower-case 0x dropped, odd length left-padded, any case; no length check. */
export function parseTxHash(raw: string): Uint8Array {
  let digits = raw.startsWith('0x') ? raw.slice(2) : raw;
  if (!HEX_RE.test(digits)) throw new InputError('invalid_hash', 'invalid hash format');
  if (digits.length % 2 === 1) digits = `0${digits}`;
  return Buffer.from(digits, 'hex');
}

/**
 * `msgs` (docs/api.md §0.2): repeated and comma-separated values, any mix; a leading '/' ignored;
 * blanks dropped. undefined = no filter was asked for.
 */
export function parseMsgTypes(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const names = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim().replace(/^\//, ''))
    .filter((v) => v.length > 0);
  return names.length > 0 ? [...new Set(names)] : undefined;
}

/** `is_signer`: true only for the exact lower-case string "true" (docs/api.md §2.10). */
export const parseIsSigner = (raw: string | undefined): boolean => raw === 'true';

/**
 * Query string → object: `msgs` keeps every value (array); every other parameter keeps its
 * first value (docs/api.md §2.1). Values are decoded (`%XX`, `+` → space); names are case-sensitive.
 */
export function parseQueryString(text: string): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(text)) {
    if (name === 'msgs') {
      const list = out.msgs;
      if (Array.isArray(list)) list.push(value);
      else out.msgs = [value];
    } else if (!Object.hasOwn(out, name)) {
      out[name] = value;
    }
  }
  return out;
}

/**
 * Collection address (docs/api.md §2.7): the account routine's bytes, compared raw with the stored
 * collection address. The reference's error texts are kept inside a message that names the
 * parameter: Go's hex error for a non-hex digit, "invalid address format" past 64 digits.
 */
export function parseCollectionAddr(raw: string, prefix: string): Uint8Array {
  if (!raw.startsWith('0x')) {
    const bech32Bytes = tryAccountBytes(raw, prefix);
    if (bech32Bytes !== undefined && !/^[0-9a-fA-F]*$/.test(raw)) return bech32Bytes;
  }
  const digits = (raw.startsWith('0x') ? raw.slice(2) : raw).replace(/^0+/, '').toLowerCase();
  const fail = (reason: string) =>
    new InputError(
      'invalid_collection_addr',
      `[INVALID_VALUE] invalid value for collection_addr: ${raw} (${reason})`,
    );
  if (digits.length > 64) throw fail('invalid address format');
  const padded = digits.padStart(digits.length <= 40 ? 40 : 64, '0');
  const bad = [...padded].find((ch) => !/[0-9a-f]/.test(ch));
  if (bad !== undefined) throw fail(`encoding/hex: invalid byte: ${goRune(bad)}`);
  return Buffer.from(padded, 'hex');
}

/** Go's %#U: `U+0067 'g'`, without the quoted character when it is not printable. */
function goRune(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}]|\p{Zs}/u.test(ch) && code > 0x20 ? `${hex} '${ch}'` : hex;
}

export type NftOrderBy = 'token_id' | 'height';

/** `order_by` of the token lists: trimmed, lower-cased, empty = token_id (docs/api.md §4.6.5). */
export function parseNftOrderBy(raw: string | undefined): NftOrderBy {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'token_id') return 'token_id';
  if (value === 'height') return 'height';
  throw new InputError(
    'invalid_order_by',
    `invalid order_by value '${raw}', must be one of: token_id, height`,
  );
}
