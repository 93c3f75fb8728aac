import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One file per core and one more: the long files mostly wait on child processes (simulator,
    // CLI, PostgreSQL), and each test has a database of its own. Vitest's default is cores - 1.
    maxWorkers: availableParallelism() + 1,
  },
});
