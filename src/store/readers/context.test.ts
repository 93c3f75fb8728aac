import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { countWithTimeout, createTotalsCache } from './context.js';

describe.each(testDbFactories())('countWithTimeout on $name', (factory) => {
  it('returns the count, or "-1" when it exceeds its timeout (PostgreSQL)', async () => {
    const { db, dispose } = await factory.create();
    try {
      expect(
        await countWithTimeout(
          { db, countTimeoutMs: 5000 },
          'SELECT count(*) AS n FROM generate_series(1, $1::int)',
          [42],
        ),
      ).toBe('42');
      if (db.kind === 'postgres') {
        const slow = await countWithTimeout(
          { db, countTimeoutMs: 50 },
          'SELECT count(*) AS n FROM pg_sleep(1)',
          [],
        );
        expect(slow).toBe('-1');
        // The main sessions are still usable afterwards and do not carry the count's timeout.
        expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
        await db.query('SELECT pg_sleep(0.1)');
      }
    } finally {
      await dispose();
    }
  });
});

describe('createTotalsCache', () => {
  it('shares concurrent computations and keeps results for its TTL only', async () => {
    let clock = 0;
    let runs = 0;
    const cache = createTotalsCache({ ttlMs: 1000, now: () => clock });
    const compute = async () => {
      runs += 1;
      await new Promise((r) => setTimeout(r, 5));
      return String(runs);
    };
    expect(await Promise.all([cache.get('k', compute), cache.get('k', compute)])).toEqual(['1', '1']);
    expect(await cache.get('k', compute)).toBe('1');
    clock = 1001;
    expect(await cache.get('k', compute)).toBe('2');
    const noTtl = createTotalsCache({ ttlMs: 0 });
    expect(await noTtl.get('k', compute)).toBe('3');
    expect(await noTtl.get('k', compute)).toBe('4');
  });
});
