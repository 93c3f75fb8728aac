import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createTurns, threadTurns, TURN_MS } from './turns.js';

describe('turns of a prepare thread', () => {
  it('runs the waiting steps of smaller chunks first, in arrival order within a size', async () => {
    const turns = createTurns();
    const ran: string[] = [];
    const step = (name: string) => () => void ran.push(name);
    await Promise.all([
      turns.take(20, step('bulk a1')),
      turns.take(20, step('bulk a2')),
      turns.take(5, step('mid')),
      turns.take(1, step('head x')),
      turns.take(20, step('bulk b1')),
      turns.take(1, step('head y')),
    ]);
    expect(ran).toEqual(['head x', 'head y', 'mid', 'bulk a1', 'bulk a2', 'bulk b1']);
  });

  it('serves what arrives during a turn before the next waiting step, with two chains', async () => {
    const turns = createTurns();
    turns.join();
    turns.join();
    const { port1, port2 } = new MessageChannel();
    const ran: string[] = [];
    // A chain at its head asks while a chunk of 20 is being prepared: its message is read, and its
    // one-block step runs, after the bulk step in progress, not after the whole chunk.
    const headStep = new Promise<void>((resolve) =>
      port2.once('message', () => {
        ran.push('message');
        void turns.take(1, () => void ran.push('head')).then(resolve);
      }),
    );
    // Each block of the chunk takes a whole turn's time: one block per turn.
    const bulk = Array.from({ length: 20 }, (_, i) =>
      turns.take(20, () => {
        ran.push(`bulk ${i}`);
        if (i === 0) port1.postMessage('chunk');
        const until = performance.now() + TURN_MS;
        while (performance.now() < until);
      }),
    );
    await Promise.all([...bulk, headStep]);
    port1.close();
    expect(ran.slice(0, 4)).toEqual(['bulk 0', 'message', 'head', 'bulk 1']);
    expect(ran.filter((r) => r.startsWith('bulk'))).toHaveLength(20);
  });

  it("runs a single chain's steps back to back, and again once the second chain has left", async () => {
    const turns = createTurns();
    const leave = turns.join();
    const chunkOfSlowBlocks = (ran: string[]) =>
      Promise.all(
        [0, 1, 2].map((i) =>
          turns.take(3, () => {
            // Another turn of the loop in between would run this first.
            if (i === 0) setImmediate(() => ran.push('loop'));
            ran.push(`block ${i}`);
            const until = performance.now() + TURN_MS;
            while (performance.now() < until);
          }),
        ),
      );
    const alone: string[] = [];
    await chunkOfSlowBlocks(alone);
    expect(alone.slice(0, 3)).toEqual(['block 0', 'block 1', 'block 2']);

    const leaveSecond = turns.join();
    const shared: string[] = [];
    await chunkOfSlowBlocks(shared);
    expect(shared.slice(0, 2)).toEqual(['block 0', 'loop']);

    leaveSecond();
    leaveSecond();
    const aloneAgain: string[] = [];
    await chunkOfSlowBlocks(aloneAgain);
    expect(aloneAgain.slice(0, 3)).toEqual(['block 0', 'block 1', 'block 2']);
    leave();
  });

  it('answers each step with its own result or failure, and goes on after a failure', async () => {
    const turns = createTurns();
    const failing = turns.take(1, () => {
      throw new Error('malformed tx');
    });
    const later = turns.take(1, () => Promise.resolve('prepared'));
    await expect(failing).rejects.toThrow('malformed tx');
    await expect(later).resolves.toBe('prepared');
  });

  it("gives every preparer of a thread the thread's one set of turns", () => {
    expect(threadTurns()).toBe(threadTurns());
  });
});
