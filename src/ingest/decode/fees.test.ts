import { describe, expect, it } from 'vitest';
import { sumFees } from './fees.js';

describe('sumFees (SDK Coins.Add)', () => {
  it('merges by denom exactly, drops zeros, sorts by denom bytewise', () => {
    const total = sumFees([
      [{ denom: 'uinit', amount: '18446744073709551615' }],
      [
        { denom: 'ibc/AB', amount: '1' },
        { denom: 'uinit', amount: '1' },
      ],
      [{ denom: 'GAS', amount: '0' }],
      [{ denom: 'evm/E1Ff', amount: '5' }],
    ]);
    expect(total).toEqual([
      { denom: 'evm/E1Ff', amount: '5' },
      { denom: 'ibc/AB', amount: '1' },
      { denom: 'uinit', amount: '18446744073709551616' },
    ]);
  });

  it('answers [] for no fees and rejects non-integer amounts', () => {
    expect(sumFees([])).toEqual([]);
    expect(() => sumFees([[{ denom: 'u', amount: '1.5' }]])).toThrow(/not an integer/);
  });
});
