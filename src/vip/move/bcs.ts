import { uleb128 } from '../../shared/bcs.js';

/** The few BCS encodings the vip_score entry and view functions take (docs/vip-contracts.md §5.3). */

export function bcsU64(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
  return out;
}

export function bcsU16(value: number): Uint8Array {
  return Uint8Array.of(value & 0xff, (value >> 8) & 0xff);
}

/** 32 raw bytes of a `0x` + 64-hex address. */
export function bcsAddress(hex64: string): Uint8Array {
  const digits = hex64.startsWith('0x') ? hex64.slice(2) : hex64;
  if (!/^[0-9a-f]{64}$/.test(digits)) throw new Error(`not a 32-byte hex address: ${hex64}`);
  return Uint8Array.from(Buffer.from(digits, 'hex'));
}

export function bcsVector(items: Uint8Array[]): Uint8Array {
  return Buffer.concat([uleb128(items.length), ...items]);
}

export function bcsOptionAddress(hex64: string | undefined): Uint8Array {
  return hex64 === undefined ? Uint8Array.of(0) : Buffer.concat([Uint8Array.of(1), bcsAddress(hex64)]);
}

export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
