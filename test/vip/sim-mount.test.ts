import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createVipSimExtension, TESTNET_VIP_PACKAGE } from '../../src/sim/vip/mount.js';
import { serveExtensions, type ExtensionServer } from '../../src/sim/vip/server.js';
import { deployArgv, updateScoresArgv } from './cli-args.js';
import { chainArgv, FAKE_WASM } from './harness.js';
import { vipRunner } from './in-process.js';

let server: ExtensionServer;
let clock = 1_760_000_000_000;

beforeAll(async () => {
  const { extension } = createVipSimExtension({
    vm: 'wasm',
    chainId: 'miniwasm-1',
    l1StageSeconds: 60,
    l1InitialStage: 10n,
    now: () => clock,
  });
  server = await serveExtensions([extension]);
});
afterAll(async () => server?.close());

// A key the chain has never seen: the sim --vip chain funds accounts on first use.
const vip = vipRunner({ K: `0x${'42'.repeat(32)}` });

describe('sim --vip mount (rollup chain model + L1 module store)', () => {
  it('serves the L1 stage, advancing with time, and a fresh operator can deploy and score', async () => {
    expect(
      await vip(['l1-stage', '--l1-rest', server.url, '--vip-package', TESTNET_VIP_PACKAGE]),
    ).toMatchObject({ stage: '10' });
    clock += 61_000;
    expect(await vip(['l1-stage', '--l1-rest', server.url, '--network', 'testnet'])).toMatchObject({
      stage: '11',
    });
    const dir = await mkdtemp(path.join(tmpdir(), 'vip-mount-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const wasm = path.join(dir, 'c.wasm');
    await writeFile(wasm, FAKE_WASM);
    const base = chainArgv({ vm: 'wasm', rest: server.url, chainId: 'miniwasm-1' }, '--key-env', 'K');
    const d = await vip(deployArgv(base, 'wasm', wasm, '11', path.join(dir, 'r.json')));
    const contract = (d.record as { contractAddress: string }).contractAddress;
    const scores = path.join(dir, 's.json');
    await writeFile(
      scores,
      JSON.stringify([{ address: `0x${'ab'.repeat(20)}`, amount: 5 }, [`0x${'cd'.repeat(20)}`, '7']]),
    );
    expect(
      await vip(updateScoresArgv(base, contract, '11', scores, '--progress', path.join(dir, 'p.json'))),
    ).toMatchObject({ onChainTotal: '12' });
    const finalize = () =>
      vip([
        'finalize',
        ...base,
        '--contract',
        contract,
        '--stage',
        '11',
        '--l1-rest',
        server.url,
        '--network',
        'testnet',
      ]);
    await expect(finalize()).rejects.toMatchObject({ code: 'stage_not_over' });
    clock += 60_000;
    expect(await finalize()).toMatchObject({ finalized: [{ stage: '11' }] });
  });
});
