import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.js';
import { createRowCache, type RowFetch } from './row-cache.js';
import { createStoreWatch, type StoreIdentity } from './store-watch.js';

const text = (sequence: number) => `{"sequence":${sequence},"pad":"${'x'.repeat(sequence % 7)}"}`;

/** A cache over a fake store: `store.identity` is what the store says, `fetched` what was read. */
function setup(options: { maxBytes?: number } = {}) {
  const store = { identity: { key: 'chain-a', height: 10 } as StoreIdentity, reads: 0 };
  const clock = { ms: 0 };
  const seen = { hits: 0, misses: 0, drops: 0 };
  const cache = createRowCache({
    maxBytes: options.maxBytes ?? 1024 * 1024,
    watch: createStoreWatch({
      identity: async () => {
        store.reads += 1;
        return store.identity;
      },
      checkEveryMs: 1000,
      now: () => clock.ms,
    }),
    observer: {
      looked(_table, hits, misses) {
        seen.hits += hits;
        seen.misses += misses;
      },
      dropped: () => (seen.drops += 1),
    },
  });
  const fetched: number[] = [];
  const fetch: RowFetch = async (missing) => {
    fetched.push(...missing);
    return missing.map((sequence) => ({ sequence, data: Buffer.from(text(sequence)) }));
  };
  const page = async (sequences: number[]) =>
    (await cache.rows('tx', sequences, fetch)).map((b) => b.toString('utf8'));
  return { cache, store, clock, seen, fetched, fetch, page };
}

describe('row cache', () => {
  it('serves rows in the order asked, holding those fetched a second time', async () => {
    const { page, fetched, seen } = setup();
    expect(await page([5, 4, 3])).toEqual([5, 4, 3].map(text));
    expect(await page([6, 5, 4])).toEqual([6, 5, 4].map(text)); // 5 and 4 are held from here on
    expect(await page([6, 5, 4])).toEqual([6, 5, 4].map(text));
    expect(fetched).toEqual([5, 4, 3, 6, 5, 4, 6]);
    expect(seen).toMatchObject({ hits: 2, misses: 7 });
  });

  it('keeps its rows apart per table', async () => {
    const { cache, fetch } = setup();
    const evm: RowFetch = async () => [{ sequence: 1, data: 'evm row' }];
    for (let i = 0; i < 2; i += 1) await cache.rows('tx', [1], fetch);
    for (let i = 0; i < 2; i += 1) await cache.rows('evm_tx', [1], evm);
    expect((await cache.rows('evm_tx', [1], fetch))[0]!.toString()).toBe('evm row');
    expect((await cache.rows('tx', [1], evm))[0]!.toString()).toBe(text(1));
  });

  it('does not hold a page read only once (a crawler walking history)', async () => {
    const { cache, page } = setup();
    for (let s = 1; s <= 50; s += 5) await page([s, s + 1, s + 2, s + 3, s + 4]);
    expect(cache.bytes()).toBe(0);
    await page([1, 2]);
    expect(cache.bytes()).toBeGreaterThan(0);
  });

  it('holds copies: rows handed over as views of a reused read buffer stay intact', async () => {
    const { cache } = setup();
    // Like pg-socket.ts: one buffer, each read overwrites what the last one left.
    const socket = Buffer.alloc(64 * 1024);
    const viewOf = (sequence: number) => {
      const bytes = Buffer.from(text(sequence));
      socket.fill(0);
      bytes.copy(socket, 100);
      return socket.subarray(100, 100 + bytes.length);
    };
    for (let i = 0; i < 2; i += 1) {
      await cache.rows('tx', [7], async () => [{ sequence: 7, data: viewOf(7) }]);
      await cache.rows('tx', [8], async () => [{ sequence: 8, data: viewOf(8) }]);
    }
    socket.fill(0x7a);
    const again = await cache.rows('tx', [7, 8], async () => []);
    expect(again.map((b) => b.toString())).toEqual([text(7), text(8)]);
  });

  it('stays within its byte budget, keeping the rows used last', async () => {
    const { cache, page, fetched } = setup({ maxBytes: 8000 });
    for (let s = 1; s <= 120; s += 1) {
      await page([s]);
      await page([s]);
      if (s % 4 === 0) await page([1]); // used all along: never dropped
      expect(cache.bytes()).toBeLessThanOrEqual(8000);
    }
    fetched.length = 0;
    await page([120, 119, 1]); // the newest and the one in use: held
    await page([2]); // the oldest: dropped
    expect(fetched).toEqual([2]);
  });

  it('re-reads the store identity at most once per interval, and drops every row when it changes', async () => {
    const { page, store, clock, fetched, seen } = setup();
    await page([1, 2]);
    await page([1, 2]);
    expect(store.reads).toBe(1);
    // Another chain in the same database: within the interval the rows are still served ...
    store.identity = { key: 'chain-b', height: 10 };
    clock.ms = 999;
    await page([1]);
    expect(store.reads).toBe(1);
    // ... and once it is due the change is seen before any row is served from memory.
    clock.ms = 1000;
    fetched.length = 0;
    await page([1, 2]);
    expect(store.reads).toBe(2);
    expect(fetched).toEqual([1, 2]);
    expect(seen.drops).toBe(1);
  });

  it('drops its rows when the checkpoint goes backwards (a re-ingest), not when it moves on', async () => {
    const { page, store, clock, fetched } = setup();
    await page([1]);
    await page([1]);
    store.identity = { key: 'chain-a', height: 50 };
    clock.ms = 1000;
    await page([1]);
    expect(fetched).toEqual([1, 1]);
    store.identity = { key: 'chain-a', height: 3 };
    clock.ms = 2000;
    await page([1]);
    expect(fetched).toEqual([1, 1, 1]);
  });

  it('trusts nothing it holds after the identity could not be read', async () => {
    const { clock, fetch, fetched } = setup();
    let failing = true;
    const flaky = createRowCache({
      maxBytes: 1 << 20,
      watch: createStoreWatch({
        identity: async () => {
          if (failing) throw new Error('connection lost');
          return { key: 'chain-a', height: 1 };
        },
        checkEveryMs: 1000,
        now: () => clock.ms,
      }),
    });
    await flaky.rows('tx', [1], fetch);
    await flaky.rows('tx', [1], fetch); // held, unconfirmed
    clock.ms = 1000;
    failing = false;
    await flaky.rows('tx', [1], fetch); // first good read after a failure: the row is read again
    expect(fetched).toEqual([1, 1, 1]);
  });

  it('a fetch that was running when the rows were dropped does not fill the cache', async () => {
    const { cache, store, clock, fetch, fetched } = setup();
    await cache.rows('tx', [9], fetch); // identity known
    await cache.rows('tx', [1], fetch); // seen once: the next fetch of 1 would be held
    let release: () => void = () => undefined;
    const slow = cache.rows('tx', [1], async (missing) => {
      await new Promise<void>((resolve) => (release = resolve));
      return missing.map((sequence) => ({ sequence, data: 'old store' }));
    });
    // The store is reset while that fetch runs; the next page sees it and drops.
    store.identity = { key: 'chain-b', height: 1 };
    clock.ms = 1000;
    await cache.rows('tx', [9], fetch);
    release();
    expect((await slow)[0]!.toString()).toBe('old store');
    fetched.length = 0;
    expect((await cache.rows('tx', [1], fetch))[0]!.toString()).toBe(text(1));
    expect(fetched).toEqual([1]);
  });

  it('a row the second statement does not find is a retryable db_rows_changed, never a short page', async () => {
    const { cache } = setup();
    const failure = await cache
      .rows('tx', [3, 2, 1], async () => [
        { sequence: 3, data: 'a' },
        { sequence: 1, data: 'c' },
      ])
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'db_rows_changed', retryable: true });
  });

  it('serves a changing value only under the version it was read under, from its second read', async () => {
    const { cache, seen } = setup();
    const reads: string[] = [];
    const fetchAt =
      (body: string, keep = true) =>
      async () => {
        reads.push(body);
        return { body: Buffer.from(body), keep };
      };
    const at = async (version: string, body: string, keep = true) =>
      (await cache.versioned('/page', version, fetchAt(body, keep))).toString();
    expect(await at('v1', 'a')).toBe('a');
    expect(await at('v1', 'a')).toBe('a'); // second read: held
    expect(await at('v1', 'never read')).toBe('a');
    // The tables moved: the held value is not served, the new one is held in its place.
    expect(await at('v2', 'b')).toBe('b');
    expect(await at('v2', 'never read')).toBe('b');
    expect(await at('v1', 'c')).toBe('c'); // an older version is no better
    expect(reads).toEqual(['a', 'a', 'b', 'c']);
    expect(seen).toMatchObject({ hits: 2, misses: 4 });
    // A value its reader says not to keep (a timed-out count) is read every time.
    expect(await at('v3', 'x', false)).toBe('x');
    expect(await at('v3', 'y', false)).toBe('y');
    expect(await at('v3', 'z')).toBe('z');
  });

  it('drops changing values with the rows when the store identity changes', async () => {
    const { cache, store, clock } = setup();
    const read = (body: string) => async () => ({ body: Buffer.from(body), keep: true });
    await cache.versioned('/page', 'v1', read('old store'));
    await cache.versioned('/page', 'v1', read('old store'));
    store.identity = { key: 'chain-b', height: 1 };
    clock.ms = 1000;
    expect((await cache.versioned('/page', 'v1', read('new store'))).toString()).toBe('new store');
  });

  it('shares one read of a changing value among callers of the same version, never across versions', async () => {
    const { cache } = setup();
    let reads = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = (body: string) => async () => {
      reads += 1;
      await gate;
      return { body: Buffer.from(body), keep: true };
    };
    const same = [1, 2, 3].map(() => cache.versioned('/page', 'v1', slow('at v1')));
    const newer = cache.versioned('/page', 'v2', slow('at v2'));
    release();
    expect((await Promise.all(same)).map(String)).toEqual(['at v1', 'at v1', 'at v1']);
    expect(String(await newer)).toBe('at v2');
    expect(reads).toBe(2);
  });
});
