import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from './retry.js';
import { probeRpc } from './endpoint-probes.js';
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

describe('createTransport over a probed pool (docs/node-data.md §5.2)', () => {
  /** A CometBFT-like node: /status says `earliest`, blocks below `prunedBelow` are refused as CometBFT does. */
  async function node(network: string, earliest: number, prunedBelow: number) {
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const call = JSON.parse(body) as { method: string; params: { height?: string } };
        asked.push(call.method);
        if (call.method === 'status') {
          const sync = { earliest_block_height: String(earliest), latest_block_height: '100' };
          return res.end(JSON.stringify({ result: { node_info: { network }, sync_info: sync } }));
        }
        const h = Number(call.params.height);
        if (h < prunedBelow)
          return res.end(
            JSON.stringify({
              error: { data: `height ${h} is not available, lowest height is ${prunedBelow}` },
            }),
          );
        res.end(JSON.stringify({ result: { height: h, network } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
  }

  it('re-routes a height an endpoint says it pruned, without counting a failure; never asks another chain', async () => {
    // The pruned node's /status is stale (says 1): its refusal teaches the pool its lowest height.
    const pruned = await node('c-1', 1, 50);
    const archive = await node('c-1', 1, 1);
    const other = await node('x-9', 1, 1);
    const transport = createTransport({
      name: 'rpc',
      endpoints: [other.url, pruned.url, archive.url],
      timeoutMs: 2_000,
      maxConcurrent: 1,
      probe: probeRpc,
      chainId: 'c-1',
    });
    try {
      const block = (h: number) =>
        transport.request({
          method: 'POST',
          path: '/',
          body: JSON.stringify({ method: 'block', params: { height: String(h) } }),
          heights: { from: h, to: h },
        });
      for (let h = 5; h < 9; h++)
        expect(JSON.parse((await block(h)).text)).toEqual({ result: { height: h, network: 'c-1' } });
      const views = transport.endpoints();
      expect(views.map((v) => [v.health, v.lowest_height])).toEqual([
        ['wrong_chain', 1],
        ['healthy', 50],
        ['healthy', 1],
      ]);
      expect(views[0]!.error).toBe(`rpc ${other.url} serves chain x-9, expected c-1: taken out of the pool`);
      expect(other.asked.every((m) => m === 'status')).toBe(true);
      expect(pruned.asked.filter((m) => m === 'block').length).toBeLessThanOrEqual(1);
      await expect(
        transport.request({ method: 'POST', path: '/', body: '{}', heights: { from: 0, to: 0 } }),
      ).rejects.toMatchObject({
        code: 'height_not_held',
      });
    } finally {
      await transport.close();
      for (const n of [pruned, archive, other]) n.server.close();
    }
  });
});

describe('createTransport learning a REST endpoint that names no lowest height (docs/node-data.md §5.2)', () => {
  /** A REST-like node refusing state below `lowest` as an SDK 0.50 node does (HTTP 500, gRPC code 2). */
  async function restNode(lowest: number) {
    const refused: number[] = [];
    const server = http.createServer((req, res) => {
      const h = Number(req.headers['x-cosmos-block-height']);
      if (h < lowest) {
        refused.push(h);
        res.statusCode = 500;
        return res.end(
          JSON.stringify({
            code: 2,
            message: `codespace sdk code 38: not found: failed to load state at height ${h}; version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height (latest height: 1000)`,
            details: [],
          }),
        );
      }
      res.end(JSON.stringify({ height: h }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, refused, server };
  }

  it('is refused a few times over a long pruned stretch, not once per height, and every answer comes from a holder', async () => {
    const pruned = await restNode(500);
    const archive = await restNode(1);
    const transport = createTransport({
      name: 'rest',
      endpoints: [pruned.url, archive.url],
      timeoutMs: 2_000,
      maxConcurrent: 1,
    });
    try {
      for (let h = 1; h <= 600; h++) {
        const res = await transport.request({
          method: 'GET',
          path: '/cosmos/bank/v1beta1/supply',
          headers: { 'x-cosmos-block-height': String(h) },
          heights: { from: h, to: h },
        });
        expect(JSON.parse(res.text), `height ${h}`).toEqual({ height: h });
      }
      // Each refusal in a row doubles the guess: about log2(500) refusals, not ~250 (every other height).
      expect(pruned.refused.length).toBeGreaterThan(0);
      expect(pruned.refused.length).toBeLessThanOrEqual(12);
      const [prunedView] = transport.endpoints();
      expect(prunedView!.lowest_height).toBeGreaterThan(1);
      expect(prunedView!.lowest_height).toBeLessThanOrEqual(500);
      expect(prunedView!.health).toBe('healthy');
      // Past the guess it serves again (rotation between the holders).
      expect(prunedView!.requests - pruned.refused.length).toBeGreaterThan(0);
    } finally {
      await transport.close();
      pruned.server.close();
      archive.server.close();
    }
  });
});
