import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliProcesses } from '../helpers/cli-process.js';

/**
 * `start` with a bad chains file stops before anything starts, with code 2 and the one-line
 * message naming the file, the line and the field (docs/chains.md §1). Which files and settings
 * are bad is src/shared/chains-file.test.ts's and src/bin/deployment-config.test.ts's, in-process;
 * this child shows the exit for all of them.
 */
describe('start with CHAINS_FILE', () => {
  const cli = useCliProcesses();
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-chains-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('exits with code 2 naming the file, line and field of a bad entry', async () => {
    const file = path.join(dir, 'chains.yaml');
    await writeFile(
      file,
      [
        'chains:',
        '  - chain_id: minimove-1',
        '    rpc: http://127.0.0.1:1',
        '    rest: http://127.0.0.1:1',
        '  - chain_id: minievm-1',
        '    vm: evm',
        '    rpc: http://127.0.0.1:1',
        '    rest: http://127.0.0.1:1',
        '',
      ].join('\n'),
    );
    const p = cli(['start', '--port', '0'], { CHAINS_FILE: file, DATA_DIR: path.join(dir, 'data') });
    const { code } = await p.exited;
    expect(code, p.lastLines()).toBe(2);
    expect(p.lastLines()).toContain(
      `error [invalid_chains_file]: ${file}:5: chains[1].json_rpc: is required on an EVM chain`,
    );
    expect(p.lastLines()).not.toContain('listening');
  });
});
