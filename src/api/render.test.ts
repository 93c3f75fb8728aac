import { describe, expect, it } from 'vitest';
import { joinJson, renderList } from './render.js';

describe('joinJson', () => {
  it('joins items with commas between head and tail, byte for byte', () => {
    expect(joinJson({ head: '[', items: ['1', '{"a":2}', '"x"'], tail: ']' }).toString()).toBe(
      '[1,{"a":2},"x"]',
    );
    expect(joinJson({ head: '{"txs":[', items: [], tail: ']}' }).toString()).toBe('{"txs":[]}');
  });

  it('sizes the buffer in UTF-8 bytes, not characters (memos and events carry any text)', () => {
    const items = ['"é"', '"漢字"', '"🙂"'];
    const body = joinJson({ head: '[', items, tail: ']' });
    expect(body.length).toBe(Buffer.byteLength(`[${items.join(',')}]`));
    expect(JSON.parse(body.toString('utf8'))).toEqual(['é', '漢字', '🙂']);
  });

  it('copies items given as UTF-8 bytes as they are, between text items', () => {
    const body = joinJson({
      head: '[',
      items: [Buffer.from('"é😀"'), '"漢"', Buffer.from('{"a":"字"}')],
      tail: ']',
    });
    expect(body.equals(Buffer.from('["é😀","漢",{"a":"字"}]'))).toBe(true);
  });

  it('renders a list page with its pagination object', () => {
    const pagination = { previous_key: null, next_key: null, total: '1' };
    const body = joinJson(renderList('blocks', ['{"height":"2"}'], pagination));
    expect(JSON.parse(body.toString())).toEqual({
      blocks: [{ height: '2' }],
      pagination,
    });
  });
});
