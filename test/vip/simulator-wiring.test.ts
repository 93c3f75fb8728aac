import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createSimulator } from '../../src/sim/simulator.js';
import { createVipSimExtension } from '../../src/sim/vip/mount.js';
import { deployArgv, updateScoresArgv } from './cli-args.js';
import { chainArgv, FAKE_MOVE_MODULE, FAKE_WASM, KEYS, scoresCsv } from './harness.js';
import { vipRunner } from './in-process.js';

const vip = vipRunner({ K: KEYS.deployer });

describe('the VIP chain model mounted in the main simulator (what `sim --vip` does)', () => {
  it.each(['move', 'wasm'] as const)(
    '%s: deploy, score, finalize through the simulator ports',
    async (vm) => {
      const chainId = `mini${vm}-1`;
      const { chain, extension } = createVipSimExtension({ vm, chainId });
      const sim = createSimulator({
        vm,
        chainId,
        rpcPort: 0,
        restPort: 0,
        head: 50,
        extensions: [extension],
      });
      const urls = await sim.listen();
      const dir = await mkdtemp(path.join(tmpdir(), 'vip-sim-'));
      onTestFinished(async () => {
        await sim.close();
        await rm(dir, { recursive: true, force: true });
      });
      const code = path.join(dir, 'code');
      await writeFile(code, vm === 'move' ? FAKE_MOVE_MODULE : FAKE_WASM);
      const base = chainArgv({ vm, rest: urls.rest, rpc: urls.rpc, chainId }, '--key-env', 'K');
      const d = await vip(deployArgv(base, vm, code, '2', path.join(dir, 'r.json')));
      const record = d.record as { contractAddress: string; rollupVersion: string };
      expect(record.rollupVersion).toBeTruthy();
      const file = path.join(dir, 's.csv');
      const { csv, total } = scoresCsv(500);
      await writeFile(file, csv);
      const args = [...base, '--contract', record.contractAddress];
      expect(
        await vip(
          updateScoresArgv(base, record.contractAddress, '2', file, '--progress', path.join(dir, 'p.json')),
        ),
      ).toMatchObject({ onChainTotal: String(total) });
      await vip(['finalize', ...args, '--stage', '2']);
      expect(await vip(['status', ...args])).toMatchObject({ openStage: '3', finalizedStages: ['2'] });
      expect(chain.stats.includedTxs).toBeGreaterThan(3);
      expect(await vip(['l1-stage', '--l1-rest', urls.rest, '--network', 'testnet'])).toMatchObject({
        stage: '1',
      });
    },
  );
});
