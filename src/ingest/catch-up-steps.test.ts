import { describe, expect, it } from 'vitest';
import { CAUGHT_UP_BLOCKS } from '../shared/chain-condition.js';
import { createCatchUpSteps } from './catch-up-steps.js';

const FAR = 90;
const STEP = 4;

/** Two chains of one deployment; `live` has told it is at its head. */
function liveAndLate() {
  const steps = createCatchUpSteps(STEP);
  const live = steps.join();
  const late = steps.join();
  expect(live.heightsPerStep(1)).toBe(Infinity);
  return { live, late };
}

describe('catch-up steps of a deployment', () => {
  it('a chain fallen far behind takes short steps while another chain is at its head', () => {
    const { late } = liveAndLate();
    expect(late.heightsPerStep(0)).toBe(Infinity);
    expect(late.heightsPerStep(FAR)).toBe(STEP);
    // Back within CAUGHT_UP_BLOCKS of its node: no bound any more.
    expect(late.heightsPerStep(CAUGHT_UP_BLOCKS)).toBe(Infinity);
  });

  it('leaves a chain catching up from where it started unbounded: a backfill keeps its full commits', () => {
    const { late: backfill } = liveAndLate();
    expect(backfill.heightsPerStep(FAR)).toBe(Infinity);
  });

  it('leaves a chain alone, and chains all behind, unbounded', () => {
    const steps = createCatchUpSteps(STEP);
    const alone = steps.join();
    alone.heightsPerStep(0);
    expect(alone.heightsPerStep(FAR)).toBe(Infinity);
    const other = steps.join();
    // The other has not told its distance yet: it is not known to be at its head.
    expect(alone.heightsPerStep(FAR)).toBe(Infinity);
    expect(other.heightsPerStep(FAR)).toBe(Infinity);
    expect(alone.heightsPerStep(FAR)).toBe(Infinity);
  });

  it('a chain at its head that stopped no longer bounds the others', () => {
    const { live, late } = liveAndLate();
    late.heightsPerStep(0);
    expect(late.heightsPerStep(FAR)).toBe(STEP);
    live.leave();
    expect(late.heightsPerStep(FAR)).toBe(Infinity);
  });
});
