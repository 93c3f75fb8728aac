import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createResponseCache } from './cache.js';

function fakeReply() {
  const headers: Record<string, string> = {};
  const reply = {
    header(name: string, value: string) {
      headers[name] = value;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, headers };
}
const request = (url: string, cacheControl?: string) =>
  ({
    method: 'GET',
    url,
    headers: cacheControl ? { 'cache-control': cacheControl } : {},
  }) as unknown as FastifyRequest;

describe('createResponseCache', () => {
  it('expires entries after their TTL and keeps within its byte budget', async () => {
    let clock = 0;
    // Entries cost body + key bytes: 'GET:/a' + 'aaaa' = 10.
    const cache = createResponseCache({ enabled: true, maxBytes: 30, now: () => clock });
    const serve = async (...args: Parameters<typeof cache.serve>): Promise<string> =>
      String(await cache.serve(...args));
    let runs = 0;
    const produce = (body: string) => async () => {
      runs += 1;
      return body;
    };
    const a = fakeReply();
    expect(await serve(request('/a'), a.reply, 1, produce('aaaa'))).toBe('aaaa');
    expect(a.headers['x-cache']).toBe('miss');
    const b = fakeReply();
    expect(await serve(request('/a'), b.reply, 1, produce('zzzz'))).toBe('aaaa');
    expect(b.headers['x-cache']).toBe('hit');
    clock = 1000;
    expect(await serve(request('/a'), fakeReply().reply, 1, produce('bbbb'))).toBe('bbbb');
    await serve(request('/c'), fakeReply().reply, 10, produce('c'.repeat(16))); // evicts /a (10 + 22 > 30)
    expect(await serve(request('/a'), fakeReply().reply, 10, produce('dddd'))).toBe('dddd');
    expect(runs).toBe(4);
    const big = fakeReply();
    await serve(request('/big'), big.reply, 10, produce('x'.repeat(25)));
    const again = fakeReply();
    await serve(request('/big'), again.reply, 10, produce('x'.repeat(25)));
    expect(again.headers['x-cache']).toBe('miss'); // larger than the whole budget: never stored
    // A long URL counts too: a one-byte body under a 40-byte key does not fit.
    const longUrl = `/s?${'q'.repeat(36)}`;
    await serve(request(longUrl), fakeReply().reply, 10, produce('1'));
    const longAgain = fakeReply();
    await serve(request(longUrl), longAgain.reply, 10, produce('1'));
    expect(longAgain.headers['x-cache']).toBe('miss');
  });

  it('answers a stored entry as a miss once the store watch moved its epoch (rows replaced)', async () => {
    let epoch = 1;
    const cache = createResponseCache({ enabled: true, maxBytes: 1000, watch: { epoch: () => epoch } });
    const serve = async (body: string) => {
      const { reply, headers } = fakeReply();
      const served = String(await cache.serve(request('/tx'), reply, 10, async () => body));
      return `${headers['x-cache']} ${served}`;
    };
    expect(await serve('old')).toBe('miss old');
    expect(await serve('unused')).toBe('hit old');
    epoch = 2; // a job committed a batch replacing rows; the watch confirmed it
    expect(await serve('repaired')).toBe('miss repaired');
    expect(await serve('unused')).toBe('hit repaired');
  });
});
