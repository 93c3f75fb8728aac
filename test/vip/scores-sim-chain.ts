/**
 * What the `vip scores` tests share: an indexed simulator chain of hour-long blocks (so a window
 * spans several UTC days), rules that use every metric kind of the VM with targets picked from the
 * chain's own truth, and a compute call whose rows are compared with the oracle.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { stringify as yamlText } from 'yaml';
import type { Db } from '../../src/store/driver/db.js';
import type { Simulator, SimulatorOptions, VmType } from '../../src/sim/types.js';
import { computeScores, type ComputeResult, type ScoresContext } from '../../src/vip/scores/compute.js';
import { loadRulesFile } from '../../src/vip/scores/rules.js';
import type { WindowSpec } from '../../src/vip/scores/window.js';
import { indexSimulator } from '../helpers/ingest.js';
import {
  addressKey,
  expectedScores,
  scoresOfCsv,
  type ExpectedScores,
  type HeightWindow,
  type MetricRule,
  type ScoreRules,
} from '../helpers/vip-scores-truth.js';

export const HOUR_MS = 3_600_000;

export interface ScoresChain {
  vm: VmType;
  db: Db;
  sim: Simulator;
  head: number;
  dir: string;
  close(): Promise<void>;
}

/** Indexes heights 1..head of a simulator with hour-long blocks into `db`. */
export async function indexScoresChain(
  db: Db,
  vm: VmType,
  head: number,
  sim: Partial<SimulatorOptions> = {},
): Promise<ScoresChain> {
  const indexed = await indexSimulator({ db, vm, head, sim: { blockTimeMs: HOUR_MS, ...sim } });
  const dir = await mkdtemp(path.join(tmpdir(), `vip-scores-${vm}-`));
  return {
    vm,
    db,
    sim: indexed.sim,
    head,
    dir,
    async close() {
      await indexed.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The most frequent values of `pick` over the truth's txs in [1, head], most frequent first. */
function frequent(
  sim: Simulator,
  head: number,
  pick: (tx: ReturnType<Simulator['truth']['block']>['txs'][number]) => string[],
): string[] {
  const counts = new Map<string, number>();
  for (let h = 1; h <= head; h++)
    for (const tx of sim.truth.block(h).txs)
      for (const v of pick(tx)) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
}

/** The VM-specific metrics: message filters and EVM calls on the chain's busiest targets. */
function vmMetrics(c: ChainFacts): MetricRule[] {
  const { sim, head } = c;
  if (c.vm === 'move') {
    const fns = frequent(sim, head, (tx) =>
      (tx.calls ?? []).flatMap((m) =>
        m.move ? [`${m.move.moduleAddress}::${m.move.moduleName}::${m.move.functionName}`] : [],
      ),
    );
    // A 0x1 function and one of a 32-byte module address (the marketplace), both in the chain.
    const std = fns.find((f) => f.startsWith('0x1::'))!;
    const long = fns.find((f) => !f.startsWith('0x1::'))!;
    const filter = (f: string) => {
      const [module_address, module_name, fn] = f.split('::') as [string, string, string];
      return { module_address, module_name, function: fn };
    };
    return [
      {
        name: 'std_calls',
        kind: 'msg_txs',
        msg_types: ['/initia.move.v1.MsgExecute'],
        move: filter(std),
        weight: 3,
      },
      {
        name: 'pkg_calls',
        kind: 'msg_txs',
        msg_types: ['initia.move.v1.MsgExecute'],
        move: filter(long),
        weight: '1.5',
      },
    ];
  }
  if (c.vm === 'wasm') {
    const contracts = frequent(sim, head, (tx) =>
      (tx.calls ?? []).flatMap((m) => (m.wasmContract ? [m.wasmContract] : [])),
    );
    return [
      {
        name: 'top_contract',
        kind: 'msg_txs',
        msg_types: ['/cosmwasm.wasm.v1.MsgExecuteContract'],
        wasm: { contract: contracts[0]! },
        weight: 3,
      },
      // The second one written as 0x hex: the contract accepts any address form of the VM.
      {
        name: 'second_contract',
        kind: 'msg_txs',
        msg_types: ['cosmwasm.wasm.v1.MsgExecuteContract'],
        wasm: { contract: '0x' + addressKey(contracts[1]!).padStart(64, '0') },
        weight: '0.75',
      },
    ];
  }
  const calls = frequent(sim, head, (tx) =>
    (tx.calls ?? []).flatMap((m) =>
      m.evmCall ? [`${m.evmCall.contract} ${m.evmCall.input.slice(0, 10)}`] : [],
    ),
  );
  const [contract, selector] = calls[0]!.split(' ') as [string, string];
  const other = calls.map((x) => x.split(' ')[0]!).find((x) => x !== contract)!;
  return [
    // Checksummed as the chain prints it, and lower-case: "any case".
    { name: 'top_call', kind: 'evm_txs_to', contract, selector, weight: 4 },
    { name: 'other_contract', kind: 'evm_txs_to', contract: other.toLowerCase(), weight: '1.25' },
  ];
}

/** Rules with every non-NFT kind the VM has; rounding differs by VM (floor, round_half_up, ceil). */
/** What the rules builders read of a chain: its VM, its simulator and how far it was indexed. */
type ChainFacts = Pick<ScoresChain, 'vm' | 'sim' | 'head'>;

export function everyKindRules(c: ChainFacts): ScoreRules {
  const feeDenom = c.sim.truth.denoms()[0]!;
  return {
    version: 1,
    metrics: [
      { name: 'signed', kind: 'txs_signed', weight: 1 },
      { name: 'gas', kind: 'gas_used', weight: '0.00001' },
      { name: 'fees', kind: 'fees_paid', denom: feeDenom, weight: c.vm === 'evm' ? '0.000000007' : '0.0003' },
      { name: 'sends', kind: 'msg_txs', msg_types: ['/cosmos.bank.v1beta1.MsgSend'], weight: '0.5' },
      { name: 'days', kind: 'active_days', weight: '2.25' },
      ...vmMetrics(c),
    ],
    ...(c.vm === 'wasm'
      ? { rounding: 'round_half_up' as const }
      : c.vm === 'evm'
        ? { rounding: 'ceil' as const }
        : {}),
  };
}

/** Rules with the NFT kinds: mints in one collection and in any, receipts in any. */
export function nftRules(c: ScoresChain): ScoreRules {
  const collections = c.sim.truth.nftCollections(c.head);
  return {
    version: 1,
    metrics: [
      { name: 'mints_first', kind: 'nft_mints', collection: collections[0]!.addr, weight: 10 },
      { name: 'mints', kind: 'nft_mints', weight: 3 },
      { name: 'received', kind: 'nft_received', weight: 2 },
      { name: 'received_last', kind: 'nft_received', collection: collections.at(-1)!.addr, weight: '0.5' },
    ],
  };
}

let rulesFiles = 0;

/** Writes the rules (YAML when the file name says so, else JSON) and runs computeScores on the chain's index. */
export async function compute(
  c: ScoresChain,
  rules: ScoreRules,
  window: WindowSpec,
  ctx: Partial<ScoresContext> = {},
  fileName = `rules-${++rulesFiles}.json`,
): Promise<ComputeResult> {
  const file = path.join(c.dir, fileName);
  await writeFile(file, fileName.endsWith('.yaml') ? yamlText(rules) : JSON.stringify(rules, null, 2));
  return computeScores({ db: c.db, ...ctx }, { stage: 1n, rules: await loadRulesFile(file), window });
}

/**
 * The computed file holds exactly the oracle's addresses and scores, one row each, sorted by
 * address, in the VM's update-scores form (EVM 0x + 40 hex, Move 0x + 64 hex, Wasm bech32).
 */
export function expectFileMatchesOracle(result: ComputeResult, expected: ExpectedScores, vm: VmType): void {
  const { keys, addresses } = scoresOfCsv(result.csv);
  const show = (m: Map<string, bigint>) => Object.fromEntries([...m].sort().map(([k, v]) => [k, String(v)]));
  expect(show(keys)).toEqual(show(expected.scores));
  expect(addresses).toEqual([...addresses].sort());
  const form = { evm: /^0x[0-9a-f]{40}$/, move: /^0x[0-9a-f]{64}$/, wasm: /^init1[02-9ac-hj-np-z]+$/ }[vm];
  for (const a of addresses) expect(a).toMatch(form);
}

/** Computes over heights [from, to] and compares with the oracle; answers both. */
export async function expectComputeMatchesOracle(
  c: ScoresChain,
  rules: ScoreRules,
  w: HeightWindow,
  excluded: string[] = [],
  ctx: Partial<ScoresContext> = {},
  fileName?: string,
): Promise<{ result: ComputeResult; expected: ExpectedScores }> {
  const expected = expectedScores(c.sim, rules, w, excluded);
  const result = await compute(c, rules, { from: String(w.from), to: String(w.to) }, ctx, fileName);
  expect(result.window).toMatchObject({ fromHeight: w.from, toHeight: w.to });
  expectFileMatchesOracle(result, expected, c.vm);
  return { result, expected };
}
