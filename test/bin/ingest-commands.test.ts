import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliProcesses } from '../helpers/cli-process.js';
import { writeMigratedPgliteDir } from '../helpers/db.js';
import { startLookupBlocker } from '../helpers/lookup-blocker.js';
import { useSimulators } from '../sim/helpers/sims.js';

/** The demo chain's blocks before it goes live. */
const BACKLOG = 12;

/** Every step waits for a line, an exit or an answer; none waits for a delay. */
describe('start, indexer and demo as an operator meets them', { timeout: 600_000 }, () => {
  const start = useSimulators();
  let dir: string;
  const cli = useCliProcesses();
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-cmd-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('start with the node down: /health at once, /ready names the reason, metrics show the checkpoint, SIGTERM stops', async () => {
    const dataDir = path.join(dir, 'start');
    // Migrated from the run's snapshot: initdb in a fresh directory is the demo --reset run's below.
    await writeMigratedPgliteDir(dataDir);
    const { urls } = await start({ vm: 'move', head: 20, fastSignatures: true });
    const first = cli(['indexer', '--port', '0'], {
      DATA_DIR: dataDir,
      RPC_URL: urls.rpc,
      REST_URL: urls.rest,
      UNTIL_HEIGHT: '20',
      // What is tested is the operator's view of the process, not its threads (demo keeps them).
      PREPARE_WORKERS: '0',
    });
    expect((await first.exited).code, first.lastLines()).toBe(0);
    expect(first.lastLines()).toContain('stopped at height 20');

    const down = 'http://127.0.0.1:1';
    const p = cli(['start', '--port', '0'], {
      DATA_DIR: dataDir,
      RPC_URL: down,
      REST_URL: down,
      PREPARE_WORKERS: '0',
    });
    const base = await p.url();
    expect(base).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const local = base.replace('0.0.0.0', '127.0.0.1');
    expect(await (await fetch(`${local}/health`)).json()).toEqual({ status: 'ok' });
    await p.waitForLine('node request failed, retrying');
    const ready = await fetch(`${local}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { message: string }).message).toMatch(/^node unreachable: /);
    expect(await (await fetch(`${local}/metrics`)).text()).toMatch(/^rollup_indexer_height 20$/m);
    p.kill('SIGTERM');
    expect((await p.exited).code, p.lastLines()).toBe(0);
    expect(p.lastLines()).toContain('stopped at height 20');
  });

  it('indexer --until ends by itself while NFT look-ups of blocks past the height still fail', async () => {
    const dataDir = path.join(dir, 'until-lookups');
    await writeMigratedPgliteDir(dataDir);
    const { urls } = await start({ vm: 'move', head: 40, nftShare: 0.8, fastSignatures: true });
    // The window fetches past --until; those blocks' look-ups fail and are retried (10 attempts,
    // ~20 s of backoff) until the run's end stops them. Left running, they held the process past
    // the command, and the CLI's safety net ended it 5 s later, saying so. (The failures also take
    // the REST endpoint out of the pool for a while, so reaching height 20 takes ~15 s.)
    const rest = await startLookupBlocker(urls.rest, {
      status: 503,
      body: 'Service Unavailable\n',
      type: 'text/plain',
    });
    rest.failFrom(21);
    try {
      const p = cli(['indexer', '--port', '0'], {
        DATA_DIR: dataDir,
        RPC_URL: urls.rpc,
        REST_URL: rest.url,
        UNTIL_HEIGHT: '20',
        PREPARE_WORKERS: '0',
      });
      expect((await p.exited).code, p.lastLines()).toBe(0);
      expect(rest.failedHeights().length).toBeGreaterThan(0);
      expect(p.lastLines()).not.toContain('the command ended but the process did not');
      expect(p.lastLines()).toContain('stopped at height 20');
    } finally {
      await rest.close();
    }
  });

  it('a taken port fails at once with a one-line hint, leaving nothing running', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = String((blocker.address() as net.AddressInfo).port);
    try {
      const p = cli(['demo', '--port', port, '--data-dir', path.join(dir, 'busy')]);
      expect((await p.exited).code).toBe(2);
      expect(p.lastLines()).toContain(`error [port_in_use]: 127.0.0.1:${port} is already in use`);
    } finally {
      blocker.close();
    }
  });

  // Which flags are bad is process-config.test.ts's (every flag, in-process); here that a bad one
  // ends the process with code 2 before anything starts, which one child shows for all.
  it('a bad flag exits non-zero before anything starts', async () => {
    const p = cli(['demo', '--vm', 'cosmos', '--data-dir', path.join(dir, 'bad')]);
    const { code } = await p.exited;
    expect(code, p.lastLines()).toBe(2);
    expect(p.lastLines()).toContain('--vm must be move, wasm or evm');
    expect(p.lastLines()).not.toContain('simulated');
  });

  it('a second demo run resumes where the index is, on 127.0.0.1, and --reset starts over', async () => {
    const dataDir = path.join(dir, 'demo');
    // The first run finds a migrated index (the run's snapshot); --reset deletes it, so the last run
    // starts from an empty directory (initdb and the migrations), as a first demo does.
    await writeMigratedPgliteDir(dataDir);
    const demo = (until: number, ...extra: string[]) =>
      cli([
        'demo',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--backlog',
        String(BACKLOG),
        '--block-time-ms',
        '20',
        '--until',
        String(until),
        // Signing was a fifth of each run's CPU; what is tested is the index kept and reset.
        '--fast-signatures',
        ...extra,
      ]);
    // Past the backlog, so the second run's chain starts at the index, not at the backlog.
    const first = demo(BACKLOG + 8);
    expect(await first.waitForLine('API listening on')).toMatch(
      /API listening on http:\/\/127\.0\.0\.1:\d+ /,
    );
    expect((await first.exited).code, first.lastLines()).toBe(0);

    const second = demo(BACKLOG + 11);
    // The simulator starts at (at least) the indexed height, so ingest never waits for it.
    const line = await second.waitForLine('simulated move rollup from height');
    expect(Number(/from height (\d+)/.exec(line)![1])).toBe(BACKLOG + 8);
    expect((await second.exited).code, second.lastLines()).toBe(0);
    expect(second.lastLines()).not.toContain('node is behind the database');
    expect(second.lastLines()).toContain(`stopped at height ${BACKLOG + 11}`);

    const reset = demo(3, '--reset');
    expect(
      Number(/from height (\d+)/.exec(await reset.waitForLine('simulated move rollup from height'))![1]),
    ).toBe(BACKLOG);
    expect((await reset.exited).code, reset.lastLines()).toBe(0);
    expect(reset.lastLines()).toContain('stopped at height 3');
  });
});
