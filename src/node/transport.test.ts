import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from './retry.js';
import { createLimiter, createTransport } from './transport.js';

describe('createLimiter', () => {
  it('never runs more than max calls at once, and runs them all', async () => {
    const limit = createLimiter(3);
    let active = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        limit(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, (i * 7) % 5));
          active--;
          return i;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });
});

describe('backoffDelay', () => {
  it('grows exponentially with jitter and stays under the cap', () => {
    const policy = { baseMs: 100, capMs: 5_000 };
    expect(backoffDelay(0, policy, () => 0)).toBe(50);
    expect(backoffDelay(0, policy, () => 1)).toBe(100);
    expect(backoffDelay(3, policy, () => 1)).toBe(800);
    expect(backoffDelay(30, policy, () => 1)).toBe(5_000);
    expect(backoffDelay(30, policy, () => 0)).toBe(2_500);
  });
});

describe('createTransport', () => {
  it('rotates away from a dead endpoint and reports retryable errors', async () => {
    const server = http.createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const live = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const transport = createTransport({
      name: 'rpc',
      endpoints: ['http://127.0.0.1:1', live],
      timeoutMs: 2_000,
      maxConcurrent: 2,
    });
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 9; i++) {
        outcomes.push(
          await transport.request({ method: 'GET', path: '/status' }).then(
            (r) => r.text,
            (err: { code: string; retryable: boolean }) => `${err.code}:${err.retryable}`,
          ),
        );
      }
      expect(outcomes).toContain('node_unreachable:true');
      // Round robin until the dead endpoint has failed three times; then it is skipped.
      expect(outcomes.slice(-4)).toEqual(Array(4).fill('{"ok":true}'));
    } finally {
      await transport.close();
      server.close();
    }
  });
});
