import { describe, expect, it } from 'vitest';
import { createFairQueue, placesPerWorker } from './fair-queue.js';

const A = 1;
const B = 2;
const C = 3;

/** Starts jobs while `free` slots last; returns the chains they belong to, in order. */
function startAll(queue: ReturnType<typeof createFairQueue<string>>, free: number): string[] {
  const started: string[] = [];
  for (let next = queue.take(free); next; next = queue.take(--free)) started.push(next.job);
  return started;
}

describe('fair queue of a shared prepare pool', () => {
  it('gives a chain alone every slot, in its own order', () => {
    const queue = createFairQueue<string>();
    queue.attach(A);
    for (let i = 0; i < 8; i++) queue.push(A, `a${i}`);
    expect(startAll(queue, 6)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
    queue.done(A);
    expect(queue.take(1)).toEqual({ chain: A, job: 'a6' });
  });

  it('keeps a slot for an idle chain: one catching up never takes the last free one', () => {
    const queue = createFairQueue<string>();
    queue.attach(A);
    queue.attach(B);
    for (let i = 0; i < 12; i++) queue.push(A, `a${i}`);
    expect(startAll(queue, 4)).toEqual(['a0', 'a1', 'a2']);
    // B at the head: its next chunk starts in the slot kept for it, ahead of A's nine queued.
    queue.push(B, 'b0');
    expect(queue.take(1)).toEqual({ chain: B, job: 'b0' });
  });

  it('starts the chains with queued chunks in turn, whichever queued first', () => {
    const queue = createFairQueue<string>();
    for (const chain of [A, B, C]) queue.attach(chain);
    for (let i = 0; i < 6; i++) queue.push(A, `a${i}`);
    for (let i = 0; i < 2; i++) queue.push(B, `b${i}`);
    for (let i = 0; i < 3; i++) queue.push(C, `c${i}`);
    expect(startAll(queue, 8)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'c2']);
    // Two slots free: A and B take one each, though A queued its chunks long before B's new one.
    queue.push(B, 'b2');
    queue.done(A);
    queue.done(C);
    expect(startAll(queue, 2)).toEqual(['a3', 'b2']);
  });

  it('hands back a detached chain’s queued chunks and forgets it', () => {
    const queue = createFairQueue<string>();
    queue.attach(A);
    queue.attach(B);
    queue.push(A, 'a0');
    queue.push(B, 'b0');
    queue.push(B, 'b1');
    expect(queue.detach(B)).toEqual(['b0', 'b1']);
    queue.done(B);
    expect(startAll(queue, 3)).toEqual(['a0']);
  });

  it('has a place for every chain: one window, and one kept for each other chain', () => {
    expect(placesPerWorker(1, 1, 6)).toBe(6);
    expect(placesPerWorker(2, 1, 6)).toBe(7);
    expect(placesPerWorker(8, 1, 6)).toBe(13);
    expect(placesPerWorker(8, 2, 6)).toBe(7);
    expect(placesPerWorker(0, 1, 6)).toBe(6);
  });

  it('starts every chain at its head at once while a slow chain holds its place (8 chains, 1 thread)', () => {
    const queue = createFairQueue<string>();
    const chains = [0, 1, 2, 3, 4, 5, 6, 7];
    for (const chain of chains) queue.attach(chain);
    const places = placesPerWorker(chains.length, 1, 6);
    // Chain 0's node is slow: its chunk holds a place (and its next one waits for it).
    queue.push(0, 's0');
    queue.push(0, 's1');
    expect(queue.take(places)).toEqual({ chain: 0, job: 's0' });
    // The seven others' new blocks come at the same moment: none waits behind another.
    for (const chain of chains.slice(1)) queue.push(chain, `h${chain}`);
    // (Then chain 0's next chunk, in a place left over.)
    expect(startAll(queue, places - 1)).toEqual(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 's1']);
  });

  it('still gives a chain catching up its whole window beside seven idle chains (1 thread)', () => {
    const queue = createFairQueue<string>();
    for (let chain = 0; chain < 8; chain++) queue.attach(chain);
    for (let i = 0; i < 12; i++) queue.push(0, `a${i}`);
    expect(startAll(queue, placesPerWorker(8, 1, 6))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
  });
});
