import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One file per core and one more (vitest's default is cores - 1): one file at a time left a
    // core idle while it waited on its child processes (CLI, PostgreSQL). Each test has a
    // database of its own, so files never share state.
    maxWorkers: availableParallelism() + 1,
  },
});
