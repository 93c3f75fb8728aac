import { describe, expect, it } from 'vitest';
import { formatScaled, parseDecimal, roundScaled, SCALE } from './decimal.js';

describe('exact decimals', () => {
  it('parses up to 18 fractional digits and prints them canonically', () => {
    expect(parseDecimal('0.000000000000000001')?.scaled).toBe(1n);
    expect(parseDecimal('5.50')?.text).toBe('5.5');
    expect(parseDecimal('007')?.text).toBe('7');
    for (const bad of ['-1', '1e3', '.5', '1.', '0.0000000000000000001', ''])
      expect(parseDecimal(bad)).toBeUndefined();
    expect(formatScaled(123n * SCALE + 45n * 10n ** 16n)).toBe('123.45');
  });

  it('rounds floor, round_half_up and ceil', () => {
    const v = (text: string) => parseDecimal(text)!.scaled;
    expect(['2.4', '2.5', '2.6', '3'].map((t) => roundScaled(v(t), 'floor'))).toEqual([2n, 2n, 2n, 3n]);
    expect(['2.4', '2.5', '2.6', '3'].map((t) => roundScaled(v(t), 'round_half_up'))).toEqual([
      2n,
      3n,
      3n,
      3n,
    ]);
    expect(['2.4', '2.000000000000000001', '3'].map((t) => roundScaled(v(t), 'ceil'))).toEqual([3n, 3n, 3n]);
  });
});
