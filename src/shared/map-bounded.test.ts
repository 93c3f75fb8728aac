import { describe, expect, it } from 'vitest';
import { mapBounded } from './map-bounded.js';

describe('mapBounded', () => {
  it('keeps the order and never has more than the limit in flight', async () => {
    let active = 0;
    let peak = 0;
    const out = await mapBounded([5, 1, 4, 2, 3, 0], 2, async (n) => {
      active++;
      peak = Math.max(peak, active);
      for (let i = 0; i < n; i++) await Promise.resolve();
      active--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(2);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    await expect(
      mapBounded([1, 2, 3, 4], 1, async (n) => {
        started.push(n);
        if (n === 2) throw new Error('boom');
        return n;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });

  it('answers an empty list at once', async () => {
    expect(await mapBounded([], 4, async () => 1)).toEqual([]);
  });
});
