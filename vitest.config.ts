import { availableParallelism } from 'node:os';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { FULL_TIER_ONLY } from './test/tiers.js';

/**
 * Starts the heavy files first, longest first. Without a record of earlier runs (a fresh clone, as
 * in CI) vitest starts the largest files first, and the longest-running files are small: started
 * last, one of them alone kept a core busy for minutes after every other file had finished.
 */
class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = FULL_TIER_ONLY.indexOf(path.relative(spec.project.config.root, spec.moduleId));
      return i === -1 ? FULL_TIER_ONLY.length : i;
    };
    return sorted
      .map((spec, i) => ({ spec, i, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files in flight: cores + 1. Most heavy files wait on child processes (CLI, PostgreSQL, a
    // paced simulator), so one more than the cores keeps them busy; more only adds contention now
    // that most suites' work runs in PostgreSQL and children. `.ci/run` on a 2-core host, one run
    // each, quiet: 2 files 425 s, 3 files 377 s, 4 files 385 s, 5 files 416 s (the
    // run's own CPU, PostgreSQL's aside: 588 s at 3, 616 s at 4, 674 s at 5).
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: HeavyFirstSequencer },
    // Each worker process keeps its modules from one file to the next: importing src/ afresh for
    // every file cost ~90 s of CPU a run. Files share no state: each opens its own database, and
    // none mocks modules, stubs globals or sets the environment.
    isolate: false,
  },
});
