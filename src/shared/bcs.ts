/**
 * BCS length prefix (ULEB128) of vectors and strings. One encoding for the simulator's Move
 * transactions and the VIP tool's Move arguments, so the two can never drift apart.
 */
export function uleb128(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  do {
    let byte = v & 0x7f;
    v = Math.floor(v / 128);
    if (v > 0) byte |= 0x80;
    out.push(byte);
  } while (v > 0);
  return Uint8Array.from(out);
}
