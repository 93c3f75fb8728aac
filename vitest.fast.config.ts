import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';
import { FULL_TIER_ONLY } from './test/tiers.js';

/**
 * `npm run test:fast`: the inner loop (docs/testing.md). Every file but the heavy ones
 * (test/tiers.ts), on PGlite only: the PostgreSQL variants, the heavy files and the tests that
 * need a PostgreSQL server, anvil's CLI runs or Chromium are `npm test`'s.
 */
delete process.env.TEST_DATABASE_URL;
delete process.env.RI_TEST_REQUIRE_ALL;

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [...configDefaults.exclude, ...FULL_TIER_ONLY],
    },
  }),
);
