import { describe, expect, it } from 'vitest';
import { relaunchArgs } from './relaunch.js';

describe('relaunchArgs', () => {
  const argv = ['/usr/bin/node', '/app/cli.js', 'indexer', '--until', '5'];

  it('relaunches the ingest commands with the semi-space flag, keeping node flags and arguments', () => {
    expect(relaunchArgs(argv, ['--enable-source-maps'], {})).toEqual([
      '--enable-source-maps',
      '--max-semi-space-size=64',
      '/app/cli.js',
      'indexer',
      '--until',
      '5',
    ]);
    expect(relaunchArgs(['node', 'cli.js', 'start'], [], {})).toEqual([
      '--max-semi-space-size=64',
      'cli.js',
      'start',
    ]);
  });

  it("keeps an operator's own setting, other commands, and a process already relaunched", () => {
    expect(relaunchArgs(argv, ['--max-semi-space-size=16'], {})).toBeUndefined();
    expect(relaunchArgs(argv, [], { NODE_OPTIONS: '--inspect --max-semi-space-size=32' })).toBeUndefined();
    expect(relaunchArgs(['node', 'cli.js', 'api'], [], {})).toBeUndefined();
    expect(relaunchArgs(['node', 'cli.js', 'migrate'], [], {})).toBeUndefined();
    expect(relaunchArgs(argv, [], { ROLLUP_INDEXER_RELAUNCHED: '1' })).toBeUndefined();
  });
});
