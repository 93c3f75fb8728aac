import { describe, expect, it } from 'vitest';
import { createWorkLimiter } from '../store/readers/work-limiter.js';
import { createRateLimiter } from './rate-limit.js';

describe('createRateLimiter', () => {
  it('allows a burst, then one request per 1/rate seconds, per client', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ perSecond: 2, burst: 3, now: () => now });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    expect(limiter.take('a')).toBe(1);
    expect(limiter.take('b')).toBe(0);
    now += 500; // half a second refills one token at 2/s
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
    now += 60_000; // never above the burst
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([
      0, 0, 0, 1,
    ]);
  });

  it('forgets the longest-idle clients past maxClients', () => {
    let now = 0;
    const limiter = createRateLimiter({ perSecond: 1, burst: 1, maxClients: 2, now: () => now });
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('b')).toBe(0);
    expect(limiter.take('c')).toBe(0); // 'a' is dropped: it starts with a full bucket again
    now += 1;
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('c')).toBe(1);
  });
});

describe('createWorkLimiter', () => {
  it('runs up to max at once, refuses beyond, frees slots on success and failure', async () => {
    const limiter = createWorkLimiter(1);
    let finish!: () => void;
    const first = limiter.tryRun(() => new Promise<void>((resolve) => (finish = resolve)));
    expect(first).toBeDefined();
    expect(limiter.tryRun(async () => 1)).toBeUndefined();
    finish();
    await first;
    await expect(limiter.tryRun(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(limiter.inFlight()).toBe(0);
    expect(() =>
      limiter.tryRun(() => {
        throw new Error('sync');
      }),
    ).toThrow('sync');
    expect(await limiter.tryRun(async () => 2)).toBe(2);
  });
});
