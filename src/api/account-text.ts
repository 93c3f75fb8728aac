import { toBech32 } from '../shared/address.js';

/** Enough for every account of a busy rollup's hot pages; at ~150 bytes each, about 10 MB. */
const DEFAULT_CAPACITY = 65_536;

/**
 * Bech32 text of account bytes, remembered across requests: the text is a pure function of the
 * bytes and the prefix, so it never goes stale, and the accounts a wallet or explorer pages
 * through (one owner's tokens, the top holders) are encoded once instead of on every request.
 * Past `capacity` the oldest entry goes. A missing account (null) is "".
 */
export function accountTextMemo(
  prefix: string,
  capacity = DEFAULT_CAPACITY,
): (bytes: Uint8Array | null) => string {
  const known = new Map<string, string>();
  return (bytes) => {
    if (!bytes) return '';
    const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    let text = known.get(key);
    if (text === undefined) {
      text = toBech32(bytes, prefix);
      if (known.size >= capacity) known.delete(known.keys().next().value!);
      known.set(key, text);
    }
    return text;
  };
}
