/**
 * The window of `vip scores compute`: time edges (a block exactly on each edge, its txs in the
 * first and last instant of the window), heights, heights with no txs, and windows the index has
 * not reached (refused with the typed error), against the oracle. Move and EVM, each once with
 * both engines in the run (heavySuiteVms: Move on PGlite, EVM on PostgreSQL): the window's SQL is
 * the same on both, and proven on both by scores-compute-sql.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/shared/errors.js';
import type { BlockTruth } from '../../src/sim/types.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { expectedScores, heightsOfTimes, type HeightWindow } from '../helpers/vip-scores-truth.js';
import {
  compute,
  everyKindRules,
  expectComputeMatchesOracle,
  expectFileMatchesOracle,
  indexScoresChain,
  type ScoresChain,
} from './scores-sim-chain.js';

const HEAD = 120;

/** A block time with no sub-millisecond part: the index stores it exactly (timestamptz keeps µs). */
const msPrecise = (b: BlockTruth): boolean => /\.\d{1,3}Z$|:\d\dZ$/.test(b.time);

describe.each(
  testDbFactories().flatMap((f) =>
    heavySuiteVms(f.name)
      .filter((vm) => vm !== 'wasm')
      .map((vm) => [vm, f.name, f] as const),
  ),
)('vip scores window on a %s chain (%s)', (vm, _engine, factory) => {
  let chain: ScoresChain;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const created = await factory.create();
    dispose = created.dispose;
    // Up to 2 txs per block: many heights hold none.
    chain = await indexScoresChain(created.db, vm, HEAD, { txsPerBlock: '0-2' });
  }, 240_000);
  afterAll(async () => {
    await chain?.close();
    await dispose?.();
  });

  const block = (h: number) => chain.sim.truth.block(h);
  const busy = (h: number) => block(h).txs.length > 0;
  /** The oracle's file for heights [from, to], as comparable text. */
  const oracle = (w: HeightWindow) =>
    [...expectedScores(chain.sim, everyKindRules(chain), w).scores].sort().join(';');

  it('a time window [start, end) with a block on each edge: the start block is in, the end block out', async () => {
    // start = the exact time of block A, end = the exact time of block B: heights [A, B-1].
    // A-1, A, B-1 and B all hold txs, so a window one height off on either side differs.
    const edge = (h: number) => msPrecise(block(h)) && busy(h) && busy(h - 1);
    const a = Array.from({ length: 40 }, (_, i) => i + 10).find(edge)!;
    const b = Array.from({ length: 40 }, (_, i) => HEAD - 10 - i).find(edge)!;
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    const w = heightsOfTimes(chain.sim, HEAD, block(a).time, block(b).time);
    expect(w).toEqual({ from: a, to: b - 1 });
    const right = oracle(w);
    for (const off of [
      { from: a - 1, to: b - 1 },
      { from: a + 1, to: b - 1 },
      { from: a, to: b },
      { from: a, to: b - 2 },
    ])
      expect(oracle(off), `${off.from}..${off.to}`).not.toBe(right);

    const rules = everyKindRules(chain);
    const result = await compute(chain, rules, { from: block(a).time, to: block(b).time });
    expect(result.window).toMatchObject({ source: 'times', fromHeight: a, toHeight: b - 1 });
    expectFileMatchesOracle(result, expectedScores(chain.sim, rules, w), vm);
  });

  it('a time window given in whole seconds resolves by the same edge rule', async () => {
    const start = block(20).time.replace(/\.\d+Z$/, 'Z');
    const end = block(90).time.replace(/\.\d+Z$/, 'Z');
    const w = heightsOfTimes(chain.sim, HEAD, start, end);
    const rules = everyKindRules(chain);
    const result = await compute(chain, rules, { from: start, to: end });
    expect(result.window).toMatchObject({ fromHeight: w.from, toHeight: w.to });
    expectFileMatchesOracle(result, expectedScores(chain.sim, rules, w), vm);
  });

  it('heights with no txs: at both edges of a window, and a window of only such heights', async () => {
    const empty = (h: number) => !busy(h);
    const from = Array.from({ length: 50 }, (_, i) => i + 5).find(empty)!;
    const to = Array.from({ length: 50 }, (_, i) => HEAD - 5 - i).find(empty)!;
    await expectComputeMatchesOracle(chain, everyKindRules(chain), { from, to });

    const run = Array.from({ length: HEAD - 2 }, (_, i) => i + 2).find((h) => empty(h) && empty(h + 1))!;
    expect(run).toBeDefined();
    const { result } = await expectComputeMatchesOracle(chain, everyKindRules(chain), {
      from: run,
      to: run + 1,
    });
    expect(result.rows).toEqual([]);
    expect(result.csv).toMatch(/\naddress,amount\n$/);
  });

  it('a window the index has not reached is refused with window_not_indexed', async () => {
    const rules = everyKindRules(chain);
    const refused = async (window: { from: string; to: string }) => {
      const err = await compute(chain, rules, window).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(window)).toBeInstanceOf(AppError);
      expect((err as AppError).code, JSON.stringify(window)).toBe('window_not_indexed');
    };
    await refused({ from: '10', to: String(HEAD + 1) });
    await refused({ from: String(HEAD + 5), to: String(HEAD + 9) });
    // A time end after the last indexed block: a later block could still fall inside.
    const late = new Date(Date.parse(block(HEAD).time) + 1000).toISOString();
    await refused({ from: block(10).time, to: late });
    // The last indexed height itself is covered.
    await expectComputeMatchesOracle(chain, rules, { from: HEAD - 20, to: HEAD });
  });
});
