import { describe, expect, it } from 'vitest';
import { CAUGHT_UP_BLOCKS } from '../shared/chain-condition.js';
import { createCommitTurns } from './commit-turns.js';

const FAR = 90;
/** Long enough never to be reached in these tests, short enough not to hang them if it were. */
const NEVER_MS = 60_000;

/** Whether `p` has settled once the event loop has run everything ready (I/O and immediates). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
}

describe('commit turns of a deployment', () => {
  it('a chain catching up waits while a chain at its head commits, then goes', async () => {
    const turns = createCommitTurns(NEVER_MS);
    const endLive = await turns.take(CAUGHT_UP_BLOCKS);
    const late = turns.take(FAR);
    expect(await settled(late)).toBe(false);
    endLive();
    expect(await settled(late)).toBe(true);
  });

  it('chains at their heads never wait, for each other or for a chain catching up', async () => {
    const turns = createCommitTurns(NEVER_MS);
    const endLate = await turns.take(FAR);
    expect(await settled(turns.take(0))).toBe(true);
    expect(await settled(turns.take(1))).toBe(true);
    endLate();
  });

  it('chains all catching up (a backfill) do not wait for each other', async () => {
    const turns = createCommitTurns(NEVER_MS);
    await turns.take(FAR);
    expect(await settled(turns.take(FAR + 1))).toBe(true);
  });

  it('a chain catching up waits at most the longest wait, however busy the others are', async () => {
    const turns = createCommitTurns(50);
    await turns.take(0);
    const started = performance.now();
    await turns.take(FAR);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('ending a turn twice counts once', async () => {
    const turns = createCommitTurns(NEVER_MS);
    const first = await turns.take(0);
    const second = await turns.take(0);
    first();
    first();
    const late = turns.take(FAR);
    expect(await settled(late)).toBe(false);
    second();
    expect(await settled(late)).toBe(true);
  });
});
