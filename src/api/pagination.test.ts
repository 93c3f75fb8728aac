import { describe, expect, it } from 'vitest';
import { buildPagination, parsePagination, planKeyset } from './pagination.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('parsePagination', () => {
  it('applies defaults and Go parsing rules', () => {
    expect(parsePagination({}, 'sequence')).toEqual({
      limit: 100,
      offset: 0,
      reverse: true,
      countTotal: true,
      cursorKind: 'sequence',
    });
    const page = parsePagination(
      {
        'pagination.limit': '+5',
        'pagination.offset': '007',
        'pagination.reverse': 'F',
        'pagination.count_total': 'x',
      },
      'height',
    );
    expect(page).toMatchObject({ limit: 5, offset: 7, reverse: false, countTotal: true });
    expect(parsePagination({ 'pagination.limit': ' 5' }, 'sequence').limit).toBe(100);
  });

  it('decodes integer and JSON keys', () => {
    expect(
      parsePagination({ 'pagination.key': b64('30'), 'pagination.offset': '5' }, 'sequence').offset,
    ).toBe(30);
    const cursor = parsePagination({ 'pagination.key': b64(' {"sequence":9}') }, 'height');
    expect(cursor.cursorKind).toBe('sequence');
    expect(planKeyset(cursor, 'sequence')).toEqual({ after: 9, offset: 0, limit: 100, desc: true });
    expect(
      parsePagination({ 'pagination.key': b64('{"height":1,"token_id":"a"}') }, 'offset').cursorKind,
    ).toBe('composite');
    expect(parsePagination({ 'pagination.key': b64('{}') }, 'sequence').cursorKind).toBe('offset');
    expect(() => parsePagination({ 'pagination.key': 'e30' }, 'sequence')).toThrow(/valid base64/);
    expect(() => parsePagination({ 'pagination.key': b64('[1]') }, 'sequence')).toThrow(
      /nonnegative integer/,
    );
  });

  it("reads a JSON key whose last byte Celatone incremented ('}' sent as '~') as the key handed out", () => {
    const page = parsePagination({ 'pagination.key': b64('{"height":111~') }, 'offset');
    expect(page).toMatchObject({ cursorKind: 'height', cursor: { height: 111 } });
    expect(() => parsePagination({ 'pagination.key': b64('{"height":111~~') }, 'offset')).toThrow(
      /invalid pagination.key format/,
    );
  });

  it('falls back to offset paging on odd cursor values', () => {
    for (const key of ['{"sequence":"5"}', '{"sequence":2.5}', '{"sequence":1e400}', '{"height":5}']) {
      const page = parsePagination({ 'pagination.key': b64(key), 'pagination.offset': '3' }, 'sequence');
      expect(planKeyset(page, 'sequence')).toEqual({ offset: 3, limit: 100, desc: true });
    }
  });
});

describe('buildPagination', () => {
  const page = (query: Record<string, string>, kind: 'sequence' | 'offset' = 'sequence') =>
    parsePagination(query, kind);
  it('hands out a cursor only when more rows exist', () => {
    expect(
      buildPagination(page({}), { column: 'sequence', lastValue: 7, hasMore: true, total: '9' }),
    ).toEqual({
      previous_key: null,
      next_key: b64('{"sequence":7}'),
      total: '9',
    });
    expect(
      buildPagination(page({}), { column: 'sequence', lastValue: 7, hasMore: false, total: '9' }).next_key,
    ).toBeNull();
  });
  it('uses integer keys in offset mode', () => {
    const p = page({ 'pagination.offset': '20', 'pagination.limit': '10' }, 'offset');
    expect(buildPagination(p, { column: 'sequence', lastValue: 3, hasMore: true, total: '0' })).toEqual({
      previous_key: b64('10'),
      next_key: b64('30'),
      total: '0',
    });
    const q = page({ 'pagination.offset': '5', 'pagination.limit': '10' }, 'offset');
    expect(
      buildPagination(q, { column: 'sequence', lastValue: undefined, hasMore: false, total: '0' })
        .previous_key,
    ).toBeNull();
  });
});
