import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliProcesses } from '../helpers/cli-process.js';

/** Child pids of a process (Linux /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return text.split(' ').filter(Boolean).map(Number);
}

/** Alive = present in /proc and not a zombie waiting to be reaped. */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** The CLI relaunches `indexer`/`start` with a larger young generation (src/bin/relaunch.ts). */
describe.runIf(process.platform === 'linux')(
  'indexer relaunched with --max-semi-space-size',
  { timeout: 120_000 },
  () => {
    const cli = useCliProcesses();
    const down = 'http://127.0.0.1:1';
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'ri-relaunch-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('runs in one child with the flag, which dies with the launcher when that is killed outright', async () => {
      const p = cli(['indexer', '--port', '0'], {
        DATA_DIR: path.join(dir, 'a'),
        RPC_URL: down,
        REST_URL: down,
      });
      await p.waitForLine('node request failed, retrying');
      const children = await childrenOf(p.child.pid!);
      expect(children).toHaveLength(1);
      const worker = children[0]!;
      expect((await readFile(`/proc/${worker}/cmdline`, 'utf8')).split('\0')).toContain(
        '--max-semi-space-size=64',
      );

      p.kill('SIGKILL');
      await p.exited;
      // Polls until the child is gone; the test's timeout is the bound.
      while (await alive(worker)) await new Promise((r) => setTimeout(r, 20));
    });

    it("an operator's NODE_OPTIONS setting runs the command in this process", async () => {
      const p = cli(['indexer', '--port', '0'], {
        DATA_DIR: path.join(dir, 'b'),
        RPC_URL: down,
        REST_URL: down,
        NODE_OPTIONS: '--max-semi-space-size=16',
      });
      await p.waitForLine('node request failed, retrying');
      expect(await childrenOf(p.child.pid!)).toEqual([]);
      p.kill('SIGTERM');
      expect((await p.exited).code, p.lastLines()).toBe(0);
    });
  },
);
