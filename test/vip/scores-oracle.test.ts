/**
 * `vip scores compute` on the simulator's chains (all three VMs, both engines) against the
 * independent oracle (test/helpers/vip-scores-truth.ts): every metric kind, rounding modes, cap,
 * minimum, exclusions (rules list, operator), and determinism. Each VM once and each engine once
 * (heavySuiteVms): the metrics' SQL is the same on both, and proven on both row by row by
 * scores-compute-sql.test.ts; what differs by VM (its metric kinds, its address forms) runs once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBech32 } from '../../src/shared/address.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { addressKey, expectedScores, U64_MAX, type ScoreRules } from '../helpers/vip-scores-truth.js';
import {
  compute,
  everyKindRules,
  expectComputeMatchesOracle,
  indexScoresChain,
  nftRules,
  type ScoresChain,
} from './scores-sim-chain.js';

const HEAD = 150;
/** Leaves out the first blocks (collection creation) and the last ones: a window inside the chain. */
const WINDOW = { from: 6, to: HEAD - 4 };

const runs = testDbFactories().flatMap((f) => heavySuiteVms(f.name).map((vm) => [vm, f.name, f] as const));

describe.each(runs)('vip scores compute on a %s chain against the oracle (%s)', (vm, _engine, factory) => {
  let chain: ScoresChain;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const created = await factory.create();
    dispose = created.dispose;
    chain = await indexScoresChain(created.db, vm, HEAD);
  }, 240_000);
  afterAll(async () => {
    await chain?.close();
    await dispose?.();
  });

  it('every non-NFT metric kind of the VM, weighted and rounded (rules in YAML)', async () => {
    const rules = everyKindRules(chain);
    const { expected } = await expectComputeMatchesOracle(chain, rules, WINDOW, [], {}, 'every-kind.yaml');
    // Every metric saw activity, and failed txs exist in the window (so "counted only when it
    // succeeded" and "fees of failed txs too" are both exercised).
    for (const m of rules.metrics) expect(expected.totals[m.name], m.name).toBeGreaterThan(0n);
    const failed = Array.from({ length: WINDOW.to - WINDOW.from + 1 }, (_, i) =>
      chain.sim.truth.block(WINDOW.from + i).txs.filter((t) => !t.success),
    ).flat();
    expect(failed.length).toBeGreaterThan(0);
  });

  it('per-metric totals in the sidecar are the oracle totals', async () => {
    const rules = everyKindRules(chain);
    const { result, expected } = await expectComputeMatchesOracle(chain, rules, WINDOW);
    const totals = Object.fromEntries(result.meta.metrics.map((m) => [m.name, m.total]));
    expect(totals).toEqual(
      Object.fromEntries(Object.entries(expected.totals).map(([k, v]) => [k, String(v)])),
    );
  });

  it('cap, minimum, excluded addresses (any form) and the operator', async () => {
    const base = everyKindRules(chain);
    const plain = [...expectedScores(chain.sim, base, WINDOW).scores].sort((a, b) =>
      a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0,
    );
    const at = (q: number) => plain[Math.floor(plain.length * q)]!;
    const [top] = plain.at(-1)!;
    const [second] = plain.at(-2)!;
    const cap = at(0.75)[1];
    const minimum = at(0.25)[1];
    // Excluded in forms other than the file's: bech32 for Move/EVM, 0x hex for Wasm.
    const otherForm = (key: string) =>
      vm === 'wasm' ? '0x' + key.padStart(40, '0') : (bech32Of(key) as string);
    const rules: ScoreRules = {
      ...base,
      cap: String(cap),
      minimum: String(minimum),
      exclude: [otherForm(top)],
      exclude_operator: true,
    };
    const operator = otherForm(second);
    const { expected } = await expectComputeMatchesOracle(chain, rules, WINDOW, [operator], {
      operatorAddress: operator,
    });
    // The rules bite: someone is capped, someone is under the minimum, both excluded are gone.
    expect([...expected.scores.values()].filter((s) => s === cap).length).toBeGreaterThan(1);
    expect(expected.scores.size).toBeLessThan(plain.length - 2);
    expect(expected.scores.has(top)).toBe(false);
    expect(expected.scores.has(second)).toBe(false);
    expect(Math.min(...[...expected.scores.values()].map(Number))).toBeGreaterThanOrEqual(Number(minimum));
  });

  it('determinism: computing twice gives byte-identical CSV and sidecar', async () => {
    const rules = everyKindRules(chain);
    const window = { from: String(WINDOW.from), to: String(WINDOW.to) };
    const a = await compute(chain, rules, window, {}, 'same.json');
    const b = await compute(chain, rules, window, {}, 'same.json');
    expect(a.rows.length).toBeGreaterThan(0);
    expect(b.csv).toBe(a.csv);
    expect(b.metaJson).toBe(a.metaJson);
  });

  it('a score above u64 is an error naming the address', async () => {
    const rules: ScoreRules = {
      version: 1,
      metrics: [{ name: 'gas', kind: 'gas_used', weight: '1000000000000000' }],
    };
    const gas = expectedScores(
      chain.sim,
      { ...rules, metrics: [{ ...rules.metrics[0]!, weight: 1 }] },
      WINDOW,
    );
    const over = [...gas.scores].filter(([, g]) => g * 10n ** 15n > U64_MAX).map(([key]) => key);
    expect(over.length).toBeGreaterThan(0);
    const err = await compute(chain, rules, { from: String(WINDOW.from), to: String(WINDOW.to) }).then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(err?.code).toBe('score_overflow');
    const named = /of (\S+) exceeds/.exec(err?.message ?? '')?.[1];
    expect(over).toContain(addressKey(named ?? '0x0'));
  });

  it('NFT kinds: mints (one collection, any) and receipts', async () => {
    const rules = nftRules(chain);
    const { expected } = await expectComputeMatchesOracle(chain, rules, WINDOW);
    for (const m of rules.metrics) expect(expected.totals[m.name], m.name).toBeGreaterThan(0n);
  });
});

function bech32Of(key: string): string {
  const hex = key.padStart(40, '0');
  // Keys of keyring accounts are 20 bytes; addressKey round-trips the bech32 form.
  const bech = toBech32(Buffer.from(hex, 'hex'), 'init');
  expect(addressKey(bech)).toBe(key);
  return bech;
}
