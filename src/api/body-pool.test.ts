import { describe, expect, it } from 'vitest';
import { createBodyPool } from './body-pool.js';

const LARGE = 700 * 1024;

describe('body pool', () => {
  it('lends large bodies of the asked length and reuses a released one', () => {
    const pool = createBodyPool({ maxBytes: 8 * 1024 * 1024 });
    const first = pool.take(LARGE);
    expect(first.length).toBe(LARGE);
    pool.release(first);
    const second = pool.take(LARGE - 1000);
    expect(second.length).toBe(LARGE - 1000);
    expect(second.buffer).toBe(first.buffer);
  });

  it('never lends memory that is still out, nor the same memory twice after a double release', () => {
    const pool = createBodyPool({ maxBytes: 8 * 1024 * 1024 });
    const a = pool.take(LARGE);
    const b = pool.take(LARGE);
    expect(b.buffer).not.toBe(a.buffer);
    pool.release(a);
    pool.release(a);
    const c = pool.take(LARGE);
    const d = pool.take(LARGE);
    expect(c.buffer).toBe(a.buffer);
    expect(d.buffer).not.toBe(a.buffer);
  });

  it('ignores bodies it did not lend (a cached copy) and keeps no more than maxBytes free', () => {
    const pool = createBodyPool({ maxBytes: 1024 * 1024 });
    const foreign = Buffer.alloc(LARGE);
    pool.release(foreign);
    expect(pool.take(LARGE).buffer).not.toBe(foreign.buffer);
    const [x, y] = [pool.take(LARGE), pool.take(LARGE)];
    pool.release(x);
    pool.release(y); // past the 1 MiB budget: dropped
    expect(pool.take(LARGE).buffer).toBe(x.buffer);
    expect(pool.take(LARGE).buffer).not.toBe(y.buffer);
  });
});
