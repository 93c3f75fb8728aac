import type { BlockRows } from '../../src/store/writers/rows.js';

/** The block row of a hand-made test chain: hash and time follow the height, the rest is fixed. */
export function testBlock(height: number, txCount: number): BlockRows['block'] {
  return {
    height,
    hash: Buffer.alloc(32, height),
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, height)).toISOString(),
    blockTimeMs: 1000,
    proposer: 'initvaloper1test',
    gasUsed: '0',
    gasWanted: '0',
    txCount,
    totalFee: '[]',
  };
}

/** Park-Miller: the same numbers below `n` on every run, from `seed`. */
export function prng(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 48271) % 2147483647;
    return state % n;
  };
}
