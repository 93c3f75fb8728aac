import { bech32 } from 'bech32';
import { InputError } from './errors.js';

/** bech32 strings of 32-byte payloads are longer than the library's 90-char default. */
const BECH32_LIMIT = 1023;
const HEX_RE = /^[0-9a-f]*$/;

/**
 * Normalise any address text to its account bytes (docs/ingest.md §6.1, must match exactly):
 * bech32 with the configured prefix and a 20/32-byte payload, else hex with all leading '0'
 * characters dropped and left-padded to 20 bytes (≤ 40 digits) or 32 bytes (≤ 64 digits).
 * A 32-byte value with 12 leading zero bytes therefore collapses to 20 bytes, on purpose.
 */
export function accountBytesFromString(text: string, prefix: string): Uint8Array {
  if (!text.startsWith('0x')) {
    const fromBech32 = tryBech32(text, prefix);
    if (fromBech32) return fromBech32;
  }
  const digits = (text.startsWith('0x') ? text.slice(2) : text).replace(/^0+/, '').toLowerCase();
  let padded: string;
  if (digits.length <= 40) padded = digits.padStart(40, '0');
  else if (digits.length <= 64) padded = digits.padStart(64, '0');
  else throw new InputError('invalid_address', `invalid address: ${text}`);
  if (!HEX_RE.test(padded)) throw new InputError('invalid_address', `invalid address: ${text}`);
  return Buffer.from(padded, 'hex');
}

/** Like accountBytesFromString, but answers undefined instead of throwing. */
export function tryAccountBytes(text: string, prefix: string): Uint8Array | undefined {
  try {
    return accountBytesFromString(text, prefix);
  } catch {
    return undefined;
  }
}

function tryBech32(text: string, prefix: string): Uint8Array | undefined {
  try {
    const decoded = bech32.decode(text, BECH32_LIMIT);
    if (decoded.prefix !== prefix) return undefined;
    const bytes = Uint8Array.from(bech32.fromWords(decoded.words));
    return bytes.length === 20 || bytes.length === 32 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

export function toBech32(bytes: Uint8Array, prefix: string): string {
  return bech32.encode(prefix, bech32.toWords(bytes), BECH32_LIMIT);
}

/** The canonical account string: bech32 of the normalised bytes. */
export function normaliseAccount(text: string, prefix: string): string {
  return toBech32(accountBytesFromString(text, prefix), prefix);
}

export function tryNormaliseAccount(text: string, prefix: string): string | undefined {
  const bytes = tryAccountBytes(text, prefix);
  return bytes === undefined ? undefined : toBech32(bytes, prefix);
}
