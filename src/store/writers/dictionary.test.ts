import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { createAccountDictionary, hexKey } from './dictionary.js';

const key = (n: number) => Buffer.alloc(20, n);

/**
 * Account ids are held as integer by the tx edge tables (migration 0018): interning keys the table
 * already has must not spend identity values, even from a dictionary whose cache is cold (a
 * restart, another stage's dictionary, an evicted key).
 */
describe.each(testDbFactories())('account dictionary ids ($name)', (factory) => {
  it('stay dense when known keys are resolved again by a cold dictionary', async () => {
    const { db, dispose } = await factory.create();
    try {
      const resolve = async (keys: number[]) => {
        const dict = createAccountDictionary(1_000);
        const ids = await db.transaction((tx) => dict.resolve(tx, keys.map(key)));
        dict.commit();
        return keys.map((n) => ids.get(hexKey(key(n))));
      };
      expect(await resolve([1, 2, 3])).toEqual([1, 2, 3]);
      // Three cold dictionaries meet the known keys again, each with one new key.
      expect(await resolve([1, 2, 3, 4])).toEqual([1, 2, 3, 4]);
      expect(await resolve([2, 5, 3])).toEqual([2, 5, 3]);
      expect(await resolve([6, 1, 4, 5])).toEqual([6, 1, 4, 5]);
      const { rows } = await db.query<{ max: number; n: number }>(
        'SELECT max(id)::int AS max, count(*)::int AS n FROM account_dict',
      );
      expect(rows[0]).toEqual({ max: 6, n: 6 });
    } finally {
      await dispose();
    }
  });
});
