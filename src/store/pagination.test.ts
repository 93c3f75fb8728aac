import { describe, expect, it } from 'vitest';
import { checkOffset, fetchSize, keysetSql, takePage } from './pagination.js';

describe('keysetSql and takePage', () => {
  it('builds keyset and offset fragments', () => {
    const params: unknown[] = ['x'];
    expect(keysetSql({ after: 5, offset: 0, limit: 10, desc: false }, 's', params)).toEqual({
      where: ' AND s > $2',
      tail: ' ORDER BY s ASC LIMIT 11',
      offsetScan: false,
    });
    expect(params).toEqual(['x', 5]);
    const p2: unknown[] = [];
    const scan = keysetSql({ offset: 4, limit: 2, desc: true }, 's', p2);
    expect(scan).toMatchObject({ tail: ' ORDER BY s DESC LIMIT 6 OFFSET $1', offsetScan: true });
    expect(p2).toEqual([4]);
    expect(takePage([1, 2, 3], 2)).toEqual({ rows: [1, 2], hasMore: true });
    expect(takePage([1, 2], 2)).toEqual({ rows: [1, 2], hasMore: false });
  });
});

describe('fetchSize', () => {
  it('fetches at least limit + 1 rows, from a few sizes (so few distinct statements are prepared)', () => {
    const sizes = new Set<number>();
    for (let limit = 1; limit <= 1000; limit++) {
      const size = fetchSize(limit);
      expect(size).toBeGreaterThan(limit);
      expect(size).toBeLessThanOrEqual(Math.max(2 * limit + 1, 6));
      sizes.add(size);
    }
    expect(sizes.size).toBe(11);
    expect(fetchSize(100)).toBe(101);
    expect(() => fetchSize(0)).toThrow(RangeError);
    expect(() => fetchSize(1.5)).toThrow(RangeError);
  });
});

describe('bounded offsets (API_MAX_OFFSET)', () => {
  it('turns an offset on a gapless column into a key bound, at any depth', () => {
    const gapless = { table: 'tx', column: 'sequence' };
    const desc: unknown[] = [];
    expect(
      keysetSql({ offset: 9_007_199_254_740_991, limit: 2, desc: true }, 't.sequence', desc, { gapless }),
    ).toEqual({
      where: ' AND t.sequence <= (SELECT max(sequence) FROM tx) - $1::bigint',
      tail: ' ORDER BY t.sequence DESC LIMIT 6',
      offsetScan: false,
    });
    expect(desc).toEqual([9_007_199_254_740_991]);
    const asc: unknown[] = [];
    expect(keysetSql({ offset: 7, limit: 2, desc: false }, 'sequence', asc, { gapless }).where).toBe(
      ' AND sequence >= (SELECT min(sequence) FROM tx) + $1::bigint',
    );
  });

  it('refuses an offset scan past the limit with a 400 naming it, and allows it up to the limit', () => {
    expect(() => keysetSql({ offset: 10_001, limit: 2, desc: true }, 's', [])).toThrow(/API_MAX_OFFSET/);
    expect(() => keysetSql({ offset: 10_000, limit: 2, desc: true }, 's', [])).not.toThrow();
    expect(() => keysetSql({ offset: 51, limit: 2, desc: true }, 's', [], { maxOffset: 50 })).toThrow(
      'pagination offset 51 is above the limit of 50 (API_MAX_OFFSET)',
    );
    expect(() => checkOffset(50, 50)).not.toThrow();
  });
});
