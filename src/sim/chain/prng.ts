/**
 * Stateless integer hashing: every pseudo-random choice in the simulator is a pure function of
 * (seed, stream, index), which is what makes random access to any height possible.
 */

/** murmur3 fmix32: a cheap, well-mixed 32-bit finaliser. */
function fmix32(input: number): number {
  let h = input >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform 32-bit value for (seed, stream, index). Index may exceed 2^32 (split in two words). */
export function hash32(seed: number, stream: number, index: number): number {
  const low = index >>> 0;
  const high = Math.floor(index / 0x100000000) >>> 0;
  let h = fmix32(seed ^ 0x9e3779b9);
  h = fmix32(h ^ Math.imul(stream + 1, 0x27d4eb2f));
  h = fmix32(h ^ low);
  return fmix32(h ^ Math.imul(high + 1, 0x165667b1));
}

/** A value in [0, n) for (seed, stream, index). */
export function pick(seed: number, stream: number, index: number, n: number): number {
  return n <= 1 ? 0 : hash32(seed, stream, index) % n;
}

/** Named streams so that two concerns never share random numbers by accident. */
export const Stream = {
  txCount: 1,
  kind: 2,
  recipient: 3,
  amount: 4,
  fail: 5,
  coins: 6,
  msgs: 7,
  gas: 8,
  timeJitter: 9,
  signMode: 10,
  fastSig: 11,
  memo: 12,
} as const;
