import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../shared/errors.js';
import { createNodeWaits } from '../shared/node-waits.js';
import { abortableDelay, backoffDelay, withRetry } from './retry.js';

/** A failure the transport would raise for a node that is down. */
const down = () =>
  new AppError('node_unreachable', 'rpc http://node: connect ECONNREFUSED', {
    retryable: true,
    details: { surface: 'rpc' },
  });

const FAST = { baseMs: 1, capMs: 4 };
const PATIENCE = { timeout: 30_000, interval: 5 };

describe('withRetry without an attempt budget (docs/ingest.md §10)', () => {
  it('waits out an outage of any number of attempts, capped, and reports it until the node answers', async () => {
    const waits = createNodeWaits();
    let calls = 0;
    let nodeUp = false;
    const read = withRetry(
      async () => {
        calls++;
        if (!nodeUp) throw down();
        return 'block';
      },
      { policy: FAST, what: 'heights 5-9', report: { waits, part: 'block stream' } },
    );
    // Far past any budget the old policies had (10 attempts).
    await vi.waitFor(() => expect(calls).toBeGreaterThan(60), PATIENCE);
    const [wait, ...others] = waits.list();
    expect(others).toEqual([]);
    expect(wait).toMatchObject({ part: 'block stream', on: 'rpc', what: 'block stream: heights 5-9' });
    expect(wait!.attempts).toBeGreaterThan(60);
    expect(wait!.lastError).toMatch(/ECONNREFUSED/);
    nodeUp = true;
    await expect(read).resolves.toBe('block');
    expect(waits.list()).toEqual([]);
  });

  it('keeps every delay under the cap, whatever the attempt', () => {
    for (const attempt of [0, 5, 30, 10_000]) {
      expect(backoffDelay(attempt, { baseMs: 100, capMs: 5_000 }, () => 1)).toBeLessThanOrEqual(5_000);
    }
  });

  it('still fails at once on an error no retry fixes, and clears its wait', async () => {
    const waits = createNodeWaits();
    let calls = 0;
    const read = withRetry(
      async () => {
        calls++;
        if (calls < 3) throw down();
        throw new AppError('chain_mismatch', 'the node serves another chain');
      },
      { policy: FAST, what: 'node status', report: { waits, part: 'start-up' } },
    );
    await expect(read).rejects.toThrow('another chain');
    expect(calls).toBe(3);
    expect(waits.list()).toEqual([]);
  });

  it('shows one wait per part, the one waiting longest', () => {
    const waits = createNodeWaits();
    const first = waits.entry('internal_tx stage', 'debug_traceBlockByNumber 2,3');
    const second = waits.entry('internal_tx stage', 'debug_traceBlockByNumber 6,7');
    first.failed(down());
    second.failed(new AppError('node_timeout', 'jsonrpc: timeout', { details: { surface: 'jsonrpc' } }));
    second.failed(down());
    expect(waits.list()).toMatchObject([
      { what: 'internal_tx stage: debug_traceBlockByNumber 2,3', attempts: 1, on: 'rpc' },
    ]);
    first.done();
    expect(waits.list()).toMatchObject([
      { what: 'internal_tx stage: debug_traceBlockByNumber 6,7', attempts: 2 },
    ]);
    second.done();
    expect(waits.list()).toEqual([]);
  });
});

describe('retries sleeping on one signal', () => {
  it('add one abort listener to it, however many sleep at once, and none is left after', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    const stop = new AbortController();
    const failures: number[] = Array.from({ length: 40 }, () => 0);
    try {
      // A window of chunks and a batch of traces all retrying through one outage.
      const reads = failures.map((_, i) =>
        withRetry(
          async () => {
            failures[i]!++;
            throw down();
          },
          { policy: { baseMs: 20, capMs: 40 }, what: `read ${i}`, signal: stop.signal },
        ).catch((err: unknown) => err),
      );
      await vi.waitFor(() => expect(Math.min(...failures)).toBeGreaterThanOrEqual(3), PATIENCE);
      expect(getEventListeners(stop.signal, 'abort').length).toBeLessThanOrEqual(1);
      stop.abort();
      for (const err of await Promise.all(reads)) expect(err).toBeInstanceOf(AppError);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('wakes at once when the signal aborts, and leaves no listener on a finished sleep', async () => {
    const stop = new AbortController();
    await abortableDelay(1, stop.signal);
    const long = abortableDelay(60_000, stop.signal);
    stop.abort();
    await long;
    const other = new AbortController();
    await Promise.all(Array.from({ length: 20 }, () => abortableDelay(1, other.signal)));
    expect(getEventListeners(other.signal, 'abort').length).toBeLessThanOrEqual(1);
  });
});
