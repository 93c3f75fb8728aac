/**
 * A whole VIP stage on the simulator's VIP chain model (what `sim --vip` mounts): the rollup chain
 * is indexed, `vip scores compute` takes the stage window from the L1 `vip::ModuleStore`, then
 * `vip update-scores --scores` (dry run, then for real) and `vip finalize`; the contract's scores
 * are the file's, and the file is the oracle's. Commands run through the CLI's own parser.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPublicClient, http, type Hex } from 'viem';
import { VIP_SCORE_ABI } from '../../src/vip/evm/abi.js';
import { GENESIS_MS } from '../../src/sim/chain/time.js';
import type { Simulator, SimulatorOptions } from '../../src/sim/types.js';
import { createVipSimExtension, TESTNET_VIP_PACKAGE } from '../../src/sim/vip/mount.js';
import { createPgliteDb } from '../../src/store/driver/pglite.js';
import { createPostgresTestDb, writeMigratedPgliteDir, heavySuiteVms } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';
import { heightsOfTimes, expectedScores } from '../helpers/vip-scores-truth.js';
import { ANVIL_KEYS, anvilChain, startAnvil } from './anvil.js';
import { deployArgv, updateScoresArgv } from './cli-args.js';
import { chainArgv, FAKE_MOVE_MODULE, FAKE_WASM, KEYS } from './harness.js';
import { vipRunner } from './in-process.js';
import { everyKindRules, expectFileMatchesOracle, HOUR_MS } from './scores-sim-chain.js';

const HEAD = 110;
const STAGE_SECONDS = 3 * 86_400;
/** The L1 clock: its stage 1 starts 20 h after the rollup's genesis (a whole second, as on L1). */
const NOW_MS = GENESIS_MS + 20 * HOUR_MS + 300;

const vip = vipRunner({ K: KEYS.deployer, OPERATOR_KEY: ANVIL_KEYS[0] });

const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;
/**
 * Each VM once and each engine once (heavySuiteVms): the compute SQL is proven on both engines
 * against the oracle by scores-oracle.test.ts and scores-window.test.ts; here the stage's path
 * through the CLI, `--data-dir` (PGlite) and `--database-url` (PostgreSQL) each taken.
 */
const enginesOf = (vm: 'move' | 'wasm' | 'evm') => engines.filter((e) => heavySuiteVms(e).includes(vm));

describe.each((['move', 'wasm'] as const).flatMap((vm) => enginesOf(vm).map((e) => [vm, e] as const)))(
  'a VIP stage from the index on %s (%s): compute → update-scores → finalize',
  (vm, engine) => {
    it('the contract holds exactly the computed file, and the file is the oracle', async () => {
      const chainId = `mini${vm}-1`;
      const { chain: vipChain, extension } = createVipSimExtension({
        vm,
        chainId,
        l1StageSeconds: STAGE_SECONDS,
        now: () => NOW_MS,
      });
      const dir = await mkdtemp(path.join(tmpdir(), `vip-scores-e2e-${vm}-`));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));

      const { indexed, dbArgs } = await indexedChain(vm, engine, dir, {
        chainId,
        extensions: [extension],
      });
      const { sim, urls } = indexed;
      const base = chainArgv({ vm, rest: urls.rest, rpc: urls.rpc, chainId }, '--key-env', 'K');
      const code = path.join(dir, 'code');
      await writeFile(code, vm === 'move' ? FAKE_MOVE_MODULE : FAKE_WASM);
      const deployed = await vip(deployArgv(base, vm, code, '1', path.join(dir, 'record.json')));
      const contract = (deployed.record as { contractAddress: string }).contractAddress;

      const { rules, rulesFile } = await writeEveryKindRules(vm, sim, dir);
      const out = path.join(dir, 'stage-1.csv');
      const window = ['--l1-rest', urls.rest, '--vip-package', TESTNET_VIP_PACKAGE];
      const meta = await vip(computeStageOneArgv(rulesFile, out, window, dbArgs));

      // The L1 window [start, start + 3 days) resolved to heights by the edge rule.
      const start = new Date(Math.floor(NOW_MS / 1000) * 1000);
      const end = new Date(start.getTime() + STAGE_SECONDS * 1000);
      const w = heightsOfTimes(sim, HEAD, start.toISOString(), end.toISOString());
      expect(meta).toMatchObject({
        chain_id: chainId,
        stage: '1',
        window: { source: 'l1', from_height: w.from, to_height: w.to },
      });
      const csv = await readFile(out, 'utf8');
      const expected = expectedScores(sim, rules, w);
      expect(expected.scores.size).toBeGreaterThan(10);
      expectFileMatchesOracle({ csv } as Parameters<typeof expectFileMatchesOracle>[0], expected, vm);
      const rows = fileRows(csv);

      const update = updateScoresArgv(base, contract, '1', out, '--progress', path.join(dir, 'p.json'));
      const dry = await vip([...update, '--dry-run']);
      expect(dry).toMatchObject({ dryRun: true });
      expect(stageScores(vipChain, vm, contract)).toEqual({});

      const total = rows.reduce((n, [, a]) => n + BigInt(a), 0n);
      expect(await vip(update)).toMatchObject({ onChainTotal: String(total) });
      await vip(['finalize', ...base, '--contract', contract, '--stage', '1']);
      expect(await vip(['status', ...base, '--contract', contract])).toMatchObject({
        finalizedStages: ['1'],
      });
      expect(stageScores(vipChain, vm, contract)).toEqual(Object.fromEntries(rows));
    }, 300_000);
  },
);

/** The index of `vm`'s simulator chain (hour-long blocks) in PGlite (a data directory) or PostgreSQL. */
async function indexedChain(
  vm: 'move' | 'wasm' | 'evm',
  engine: 'pglite' | 'postgres',
  dir: string,
  sim: Partial<SimulatorOptions> = {},
) {
  const pg = engine === 'postgres' ? await createPostgresTestDb(process.env.TEST_DATABASE_URL!) : undefined;
  if (pg) onTestFinished(() => pg.dispose());
  const dataDir = path.join(dir, 'data');
  if (!pg) await writeMigratedPgliteDir(dataDir);
  const db = pg?.db ?? (await createPgliteDb({ dataDir }));
  const indexed = await indexSimulator({ db, vm, head: HEAD, sim: { blockTimeMs: HOUR_MS, ...sim } });
  onTestFinished(() => indexed.close());
  // The CLI opens the data directory itself: one process at a time.
  if (!pg) await db.close();
  return { indexed, dbArgs: pg ? ['--database-url', pg.url] : ['--data-dir', dataDir] };
}

/** Rules with every non-NFT kind for the chain, written to `dir`/rules.json. */
async function writeEveryKindRules(vm: 'move' | 'wasm' | 'evm', sim: Simulator, dir: string) {
  const rules = everyKindRules({ vm, sim, head: HEAD });
  const rulesFile = path.join(dir, 'rules.json');
  await writeFile(rulesFile, JSON.stringify(rules, null, 2));
  return { rules, rulesFile };
}

/** `vip scores compute` of stage 1 over `window` (its options) into `out`. */
function computeStageOneArgv(rulesFile: string, out: string, window: string[], dbArgs: string[]) {
  return ['scores', 'compute', '--stage', '1', '--rules', rulesFile, '--out', out, ...window, ...dbArgs];
}

/** The address,amount rows of a scores file. */
function fileRows(csv: string): [string, string][] {
  return csv
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#') && l !== 'address,amount')
    .map((l) => l.split(',') as [string, string]);
}

const evmEngines = enginesOf('evm');
describe.each(evmEngines)('a VIP stage from the index on evm (%s), scores contract on anvil', (engine) => {
  it('compute over block times → update-scores (dry run, real) → finalize: getScores is the file', async () => {
    const anvil = await startAnvil();
    onTestFinished(() => anvil.stop());
    const dir = await mkdtemp(path.join(tmpdir(), 'vip-scores-e2e-evm-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const { indexed, dbArgs } = await indexedChain('evm', engine, dir);
    const { sim } = indexed;

    const { rules, rulesFile } = await writeEveryKindRules('evm', sim, dir);
    const from = sim.truth.block(15).time;
    const to = sim.truth.block(95).time;
    const out = path.join(dir, 'stage-1.csv');
    await vip(computeStageOneArgv(rulesFile, out, ['--from', from, '--to', to], dbArgs));
    const csv = await readFile(out, 'utf8');
    const expected = expectedScores(sim, rules, heightsOfTimes(sim, HEAD, from, to));
    expect(expected.scores.size).toBeGreaterThan(10);
    expectFileMatchesOracle({ csv } as Parameters<typeof expectFileMatchesOracle>[0], expected, 'evm');
    const rows = fileRows(csv);

    const base = ['--vm', 'evm', '--json-rpc', anvil.url, '--key-env', 'OPERATOR_KEY', '--poll-ms', '20'];
    const deployed = await vip([
      'deploy',
      ...base,
      '--init-stage',
      '1',
      '--record',
      path.join(dir, 'record.json'),
    ]);
    const contract = (deployed.record as { contractAddress: Hex }).contractAddress;
    const update = updateScoresArgv(base, contract, '1', out, '--progress', path.join(dir, 'p.json'));
    expect(await vip([...update, '--dry-run'])).toMatchObject({ dryRun: true });
    const pub = createPublicClient({ chain: anvilChain(anvil), transport: http(anvil.url) });
    const onChain = async () => {
      const got = await pub.readContract({
        address: contract,
        abi: VIP_SCORE_ABI,
        functionName: 'getScores',
        args: [1n, 0n, 10_000n],
      });
      // getScores pads its answer with zero-address rows (see evm-contract.test.ts).
      const real = got.filter((r) => BigInt(r.addr) !== 0n);
      return Object.fromEntries(real.map((r) => [r.addr.toLowerCase(), String(r.amount)]));
    };
    expect(await onChain()).toEqual({});
    await vip(update);
    await vip(['finalize', ...base, '--contract', contract, '--stage', '1']);
    expect(await vip(['status', ...base, '--contract', contract])).toMatchObject({ finalizedStages: ['1'] });
    expect(await onChain()).toEqual(Object.fromEntries(rows));
  }, 300_000);
});

/** The score contract's stage-1 scores as address → amount text (the model's own state). */
function stageScores(
  chain: ReturnType<typeof createVipSimExtension>['chain'],
  vm: 'move' | 'wasm',
  contract: string,
): Record<string, string> {
  if (vm === 'move') {
    const scores = chain.moveModule(contract)?.stages.get(1n)?.scores ?? new Map<string, bigint>();
    return Object.fromEntries([...scores].map(([a, v]) => [a, String(v)]));
  }
  const c = chain.wasmContract(contract);
  const out: Record<string, string> = {};
  for (const [k, v] of c?.model.scores ?? []) if (k.startsWith('1|')) out[k.slice(2)] = String(v);
  return out;
}
