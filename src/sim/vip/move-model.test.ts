import { describe, expect, it } from 'vitest';
import { MoveAbort, MoveArithmeticError, MoveVipScore, MOVE_CODES } from './move-model.js';

const P = `0x${'01'.repeat(32)}`;
const D = `0x${'02'.repeat(32)}`;
const A = `0x${'0a'.repeat(32)}`;
const B = `0x${'0b'.repeat(32)}`;
const abort = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof MoveAbort ? err.code : 'other';
  }
  return 'none';
};

describe('MoveVipScore (docs/vip-contracts.md §1.2)', () => {
  it('publisher-only deployer admin; set_init_stage checks zero before permission, then once only', () => {
    const m = new MoveVipScore(P);
    expect(abort(() => m.addDeployer(D, D, true))).toBe(MOVE_CODES.EUNAUTHORIZED_PUBLISHER);
    expect(abort(() => m.removeDeployer(P, D, true))).toBe(MOVE_CODES.EDEPLOYER_NOT_FOUND);
    m.addDeployer(P, D, true);
    expect(abort(() => m.addDeployer(P, D, true))).toBe(MOVE_CODES.EDEPLOYER_ALREADY_ADDED);
    expect(abort(() => m.setInitStage(P, 0n, true))).toBe(MOVE_CODES.ESTAGE_ZERO);
    expect(abort(() => m.setInitStage(P, 3n, true))).toBe(MOVE_CODES.EUNAUTHORIZED);
    m.setInitStage(D, 3n, true);
    expect(abort(() => m.setInitStage(D, 4n, true))).toBe(MOVE_CODES.EALREADY_SET);
  });

  it('update: permission, length, stage, finalized — in that order; last duplicate wins; views', () => {
    const m = new MoveVipScore(P);
    m.addDeployer(P, D, true);
    expect(abort(() => m.updateScores(D, 1n, [], [], true))).toBe(MOVE_CODES.EINVALID_STAGE);
    m.setInitStage(D, 1n, true);
    expect(abort(() => m.updateScores(P, 9n, [A], [], true))).toBe(MOVE_CODES.EUNAUTHORIZED);
    expect(abort(() => m.updateScores(D, 9n, [A], [], true))).toBe(MOVE_CODES.ENOT_MATCH_LENGTH);
    expect(abort(() => m.updateScores(D, 9n, [A], [1n], true))).toBe(MOVE_CODES.EINVALID_STAGE);
    const sim = m.updateScores(D, 1n, [A, B, A], [10n, 20n, 30n], false);
    expect(sim.events).toHaveLength(3);
    expect(m.getTotalScore(1n)).toBe(0n);
    m.updateScores(D, 1n, [A, B, A], [10n, 20n, 30n], true);
    expect(m.getScore(A, 1n)).toBe(30n);
    expect(m.getTotalScore(1n)).toBe(50n);
    expect(m.getScores(1n, 10, undefined).scores.map((s) => s.addr)).toEqual([B, A]);
    expect(m.getScores(1n, 10, B).scores.map((s) => s.addr)).toEqual([A]);
    expect(() => m.updateScores(D, 1n, [A, B], [(1n << 64n) - 1n, 5n], true)).toThrow(MoveArithmeticError);
    expect(m.getTotalScore(1n)).toBe(50n);
  });

  it('finalize creates the next stage; a repeat aborts with EFINALIZED_STAGE', () => {
    const m = new MoveVipScore(P);
    m.addDeployer(P, D, true);
    m.setInitStage(D, 1n, true);
    expect(abort(() => m.finalize(D, 2n, true))).toBe(MOVE_CODES.EINVALID_STAGE);
    m.finalize(D, 1n, true);
    expect(m.stages.get(2n)).toMatchObject({ totalScore: 0n, isFinalized: false });
    expect(abort(() => m.finalize(D, 1n, true))).toBe(MOVE_CODES.EFINALIZED_STAGE);
    expect(abort(() => m.updateScores(D, 1n, [A], [1n], true))).toBe(MOVE_CODES.EFINALIZED_STAGE);
  });
});
