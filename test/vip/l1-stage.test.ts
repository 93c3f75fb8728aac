import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVipChain } from '../../src/sim/vip/chain.js';
import { createVipExtension } from '../../src/sim/vip/extension.js';
import { serveExtensions, type ExtensionServer } from '../../src/sim/vip/server.js';
import { L1_NETWORKS } from '../../src/vip/l1.js';
import { vipRunner } from './in-process.js';

let clock = 1_750_000_000_000;
let server: ExtensionServer;
const interval = 1_209_600;

beforeAll(async () => {
  const l1 = createVipChain({
    chainId: 'initiation-2',
    vm: 'move',
    now: () => clock,
    l1: {
      packageAddress: L1_NETWORKS.testnet.vipPackage,
      initialStage: 140n,
      stageIntervalSec: interval,
      genesisTimeMs: clock - 1000,
    },
  });
  server = await serveExtensions([createVipExtension(l1)]);
});
afterAll(async () => server?.close());

const vip = vipRunner({ K: `0x${'11'.repeat(32)}` });

describe('l1-stage against the L1 mode of the chain model', () => {
  it('reads data.stage of <pkg>::vip::ModuleStore and follows time', async () => {
    const args = ['l1-stage', '--network', 'testnet', '--l1-rest', server.url];
    const first = await vip(args);
    expect(first).toMatchObject({ stage: '140', vipPackage: L1_NETWORKS.testnet.vipPackage });
    expect(BigInt(first.stageEndTime as string) - BigInt(first.stageStartTime as string)).toBe(
      BigInt(interval),
    );
    clock += interval * 1000 * 2;
    expect(await vip(args)).toMatchObject({ stage: '142' });
  });

  it('an unknown package is a clear error', async () => {
    await expect(
      vip(['l1-stage', '--l1-rest', server.url, '--vip-package', `0x${'ab'.repeat(32)}`]),
    ).rejects.toMatchObject({ code: 'l1_stage_unavailable' });
  });

  it('finalize refuses a stage that is not over on L1 (before reading or sending anything)', async () => {
    await expect(
      vip([
        'finalize',
        '--vm',
        'move',
        '--rest',
        server.url,
        '--chain-id',
        'c',
        '--gas-prices',
        '0.015umin',
        '--key-env',
        'K',
        '--stage',
        '142',
        '--l1-rest',
        server.url,
        '--network',
        'testnet',
      ]),
    ).rejects.toMatchObject({ code: 'stage_not_over' });
  });
});
