import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createTurns, NO_TURNS, TURN_MS } from './turns.js';

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

  it('serves what arrives during a turn before the next waiting step', async () => {
    const turns = createTurns();
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

  it('answers each step with its own result or failure, and goes on after a failure', async () => {
    const turns = createTurns();
    const failing = turns.take(1, () => {
      throw new Error('malformed tx');
    });
    const later = turns.take(1, () => Promise.resolve('prepared'));
    await expect(failing).rejects.toThrow('malformed tx');
    await expect(later).resolves.toBe('prepared');
  });

  it('runs a step at once without turns (the main-thread preparer)', async () => {
    let ran = false;
    const result = NO_TURNS.take(20, () => {
      ran = true;
      return 7;
    });
    expect(ran).toBe(true);
    await expect(result).resolves.toBe(7);
  });
});
