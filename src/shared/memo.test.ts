import { describe, expect, it } from 'vitest';
import { boundedMemo } from './memo.js';

describe('boundedMemo', () => {
  it('computes each key once, an undefined answer included, until the limit clears it', () => {
    const calls: string[] = [];
    const memo = boundedMemo((k: string) => {
      calls.push(k);
      return k.startsWith('x') ? undefined : k.length;
    }, 3);
    expect([memo('ab'), memo('xy'), memo('ab'), memo('xy')]).toEqual([2, undefined, 2, undefined]);
    expect(calls).toEqual(['ab', 'xy']);
    memo('c');
    memo('d'); // the map held 3: cleared, then 'd' stored
    expect(memo('ab')).toBe(2);
    expect(calls).toEqual(['ab', 'xy', 'c', 'd', 'ab']);
  });
});
