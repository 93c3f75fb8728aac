import { describe, expect, it } from 'vitest';
import { decodeWalkCursor, encodeWalkCursor } from './account-cursor.js';
import { mergePage, timeKey, type MergeItem } from './account-merge.js';

const item = (time: string, chainId: string, sequence: number): MergeItem<string> => ({
  time: timeKey(time),
  chainId,
  sequence,
  value: `${chainId}/${sequence}`,
});

describe('account merge order', () => {
  it('compares block times to the nanosecond, then chain id by bytes, then sequence', () => {
    const items = [
      item('2026-11-28T10:00:00.5Z', 'b-1', 1),
      item('2026-11-28T10:00:00.500000001Z', 'a-1', 1),
      item('2026-11-28T10:00:00.5Z', 'a-1', 2),
      item('2026-11-28T10:00:00.5Z', 'B-1', 9),
      item('2026-11-28T10:00:00.5Z', 'b-1', 2),
      item('2026-11-28T09:59:59Z', 'z-1', 5),
    ];
    const desc = mergePage(items, 10, true).items.map((i) => i.value);
    expect(desc).toEqual(['a-1/1', 'b-1/2', 'b-1/1', 'a-1/2', 'B-1/9', 'z-1/5']);
    const asc = mergePage(items, 4, false);
    expect(asc.items.map((i) => i.value)).toEqual(['z-1/5', 'B-1/9', 'a-1/2', 'b-1/1']);
    expect(asc.hasMore).toBe(true);
    expect(mergePage(items, 6, false).hasMore).toBe(false);
  });

  it('refuses a time that is not RFC 3339 UTC', () => {
    expect(() => timeKey('2026-11-28 10:00:00')).toThrow();
  });
});

describe('account walk cursor', () => {
  it('round-trips snapshots, positions and unavailable chains', () => {
    const cursor = {
      desc: false,
      chains: new Map([
        ['a-1', { snapshot: 10, after: 4 }],
        ['b-1', { snapshot: 0, unavailable: true }],
        ['c-1', { snapshot: 7 }],
      ]),
    };
    expect(decodeWalkCursor(encodeWalkCursor(cursor))).toEqual(cursor);
  });

  it('answers 400 naming pagination.key for anything it did not hand out', () => {
    for (const key of [
      '%%%',
      Buffer.from('{"v":2}').toString('base64'),
      Buffer.from('12').toString('base64'),
    ]) {
      expect(() => decodeWalkCursor(key)).toThrow(/pagination\.key/);
    }
    const bad = Buffer.from(JSON.stringify({ v: 1, d: 1, c: [['a', -1, null, 0]] })).toString('base64');
    expect(() => decodeWalkCursor(bad)).toThrow(/pagination\.key/);
  });
});
