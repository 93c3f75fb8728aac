import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { createAccountDictionary } from './dictionary.js';

/**
 * Two writers of one database (the block stream and a stage, each in its own transaction) intern
 * overlapping sets of new accounts at once. Each statement inserts its keys in key order, so one
 * waits for the other's row instead of both holding a row the other wants (PostgreSQL: deadlock).
 * PGlite runs one transaction at a time: PostgreSQL only (skipped without it, as in the fast tier).
 */
const postgres = testDbFactories().find((f) => f.name === 'postgres');

describe.skipIf(!postgres)('dictionary writers at once (postgres)', () => {
  it('intern overlapping sets of new keys without a deadlock, each key one id', async () => {
    const { db, dispose } = await postgres!.create();
    try {
      for (let round = 0; round < 30; round++) {
        const shared = Array.from({ length: 40 }, () => randomBytes(20));
        const sets = [200, 7].map((own) => [
          ...shared,
          ...Array.from({ length: own }, () => randomBytes(20)),
        ]);
        const found = await Promise.all(
          sets.map((keys) =>
            db.transaction((tx) => createAccountDictionary(1000).resolve(tx, keys.reverse())),
          ),
        );
        for (const key of shared) {
          const hex = key.toString('hex');
          expect(found[0]!.get(hex)).toBe(found[1]!.get(hex));
        }
      }
    } finally {
      await dispose();
    }
  }, 120_000);
});
