import { describe, expect, it } from 'vitest';
import { parseJsonWithBigInts, stringifyWithBigInts } from './json.js';
import { WasmContractError, WasmVipScore } from './wasm-model.js';

const OWNER = 'init1owner';
const err = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof WasmContractError ? `${e.panic ? 'panic:' : ''}${e.message}` : 'other';
  }
  return 'none';
};

describe('WasmVipScore (docs/vip-contracts.md §1.3)', () => {
  it('instantiate: zero stage refused; sender is not added to the allow list', () => {
    expect(err(() => new WasmVipScore({ allow_list: [], init_stage: 0n }))).toBe('Stage can not be zero');
    const c = new WasmVipScore({ allow_list: [], init_stage: 1n });
    expect(err(() => c.execute(OWNER, { finalize_stage: { stage: 1n } }, true))).toBe(
      'Address is not allowed',
    );
  });

  it('update_scores unwraps stage errors (panic); empty list skips the stage check; raw strings', () => {
    const c = new WasmVipScore({ allow_list: [OWNER], init_stage: 5n });
    expect(err(() => c.execute(OWNER, { update_scores: { stage: 9n, scores: [['a', 1n]] } }, true))).toBe(
      'panic:Stage not found',
    );
    expect(err(() => c.execute(OWNER, { update_scores: { stage: 9n, scores: [] } }, true))).toBe('none');
    expect(err(() => c.execute(OWNER, { update_score: { stage: 9n, addr: 'a', amount: 1n } }, true))).toBe(
      'Stage not found',
    );
    c.execute(
      OWNER,
      {
        update_scores: {
          stage: 5n,
          scores: [
            ['init1a', 10n],
            ['INIT1A', 20n],
            ['init1a', 30n],
          ],
        },
      },
      true,
    );
    expect(c.query({ get_stage_info: { stage: 5n } })).toEqual({
      stage: 5n,
      total_score: 50n,
      is_finalized: false,
    });
    expect(
      (c.query({ get_scores: { stage: 5n, limit: 10n } }) as { scores: { addr: string }[] }).scores.map(
        (s) => s.addr,
      ),
    ).toEqual(['INIT1A', 'init1a']);
    expect(err(() => c.query({ get_score: { stage: 5n, addr: 'nobody' } }))).toMatch(/not found/);
  });

  it('re-finalize succeeds and resets stage+1 (total to 0, re-opened)', () => {
    const c = new WasmVipScore({ allow_list: [OWNER], init_stage: 1n });
    c.execute(OWNER, { finalize_stage: { stage: 1n } }, true);
    c.execute(OWNER, { update_scores: { stage: 2n, scores: [['x', 7n]] } }, true);
    c.execute(OWNER, { finalize_stage: { stage: 2n } }, true);
    expect(err(() => c.execute(OWNER, { update_scores: { stage: 2n, scores: [['x', 1n]] } }, true))).toBe(
      'panic:Stage finalized',
    );
    c.execute(OWNER, { finalize_stage: { stage: 1n } }, true);
    expect(c.stages.get(2n)).toEqual({ stage: 2n, totalScore: 0n, isFinalized: false });
    expect(c.scores.get('2|x')).toBe(7n);
  });

  it('u64 totals wrap silently (the `as u64` cast of the i128 sum); simulation changes nothing', () => {
    const c = new WasmVipScore({ allow_list: [OWNER], init_stage: 1n });
    // One message, run first as a simulation (commit false) and then for real.
    const pastMax = {
      update_scores: {
        stage: 1n,
        scores: [
          ['a', (1n << 64n) - 1n],
          ['b', 2n],
        ],
      },
    };
    c.execute(OWNER, pastMax, false);
    expect(c.stages.get(1n)?.totalScore).toBe(0n);
    c.execute(OWNER, pastMax, true);
    expect(c.stages.get(1n)?.totalScore).toBe(1n);
  });

  it('increase_score wraps past u64::MAX; decrease_score panics on a missing or too small score', () => {
    const c = new WasmVipScore({ allow_list: [OWNER], init_stage: 1n });
    const max = (1n << 64n) - 1n;
    const inc = (addr: string, amount: bigint, stage = 1n) =>
      c.execute(OWNER, { increase_score: { addr, stage, amount } }, true);
    const dec = (addr: string, amount: bigint) =>
      c.execute(OWNER, { decrease_score: { addr, stage: 1n, amount } }, true);
    expect(err(() => inc('a', 1n, 9n))).toBe('Stage not found');
    inc('a', 7n);
    inc('a', 3n);
    expect(c.scores.get('1|a')).toBe(10n);
    dec('a', 4n);
    expect(c.scores.get('1|a')).toBe(6n);
    expect(c.stages.get(1n)?.totalScore).toBe(6n);
    expect(err(() => dec('a', 7n))).toBe('panic:Insufficient score');
    expect(err(() => dec('nobody', 1n))).toBe('panic:User score not found');
    expect(c.scores.get('1|a')).toBe(6n);
    inc('b', max);
    expect(c.scores.get('1|b')).toBe(max);
    expect(c.stages.get(1n)?.totalScore).toBe(5n);
    c.execute(OWNER, { finalize_stage: { stage: 1n } }, true);
    expect(err(() => inc('a', 1n))).toBe('Stage finalized');
    expect(err(() => dec('a', 1n))).toBe('Stage finalized');
  });

  it('JSON keeps u64 exact and quoted numbers stay strings', () => {
    const v = parseJsonWithBigInts('{"a":18446744073709551615,"b":"5","c":[1,"x:2"],"d":1.5}');
    expect(v).toEqual({ a: 18446744073709551615n, b: '5', c: [1n, 'x:2'], d: 1.5 });
    expect(stringifyWithBigInts({ s: 5n, t: 'u' })).toBe('{"s":5,"t":"u"}');
  });
});
