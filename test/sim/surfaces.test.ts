import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import type { SimulatorOptions } from '../../src/sim/types.js';
import { simCliArgv } from './helpers/cli.js';
import { useSimulators } from './helpers/sims.js';

const startSim = useSimulators();
const start = (options: Partial<SimulatorOptions>) =>
  startSim({ vm: 'move', head: 100, seed: 2, fastSignatures: true, ...options });

describe('extensions', () => {
  it('are tried in order after the simulator misses, for REST, CometBFT RPC and EVM JSON-RPC', async () => {
    const seen: string[] = [];
    const { urls } = await start({
      vm: 'evm',
      extensions: [
        { rest: (req) => (req.path === '/ext/one' ? { status: 200, body: { from: 'first' } } : undefined) },
        {
          rest: (req) =>
            req.path.startsWith('/ext/')
              ? { status: 202, body: 'plain', headers: { 'x-ext': '2' } }
              : undefined,
          rpc: (method, params) => {
            seen.push(method);
            return method === 'broadcast_tx_sync'
              ? { result: { code: 0, hash: String(params.tx ?? '') } }
              : undefined;
          },
          jsonRpc: (method) => (method === 'eth_sendRawTransaction' ? { result: '0xabc' } : undefined),
        },
      ],
    });
    expect(await (await fetch(`${urls.rest}/ext/one`)).json()).toEqual({ from: 'first' });
    const two = await fetch(`${urls.rest}/ext/two`);
    expect([two.status, two.headers.get('x-ext'), await two.text()]).toEqual([202, '2', 'plain']);
    expect((await fetch(`${urls.rest}/cosmos/base/tendermint/v1beta1/node_info`)).status).toBe(200);
    const rpc = (await (
      await fetch(urls.rpc, {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'broadcast_tx_sync', params: { tx: 'AA==' } }),
      })
    ).json()) as unknown;
    expect(rpc).toEqual({ jsonrpc: '2.0', id: 5, result: { code: 0, hash: 'AA==' } });
    const uri = (await (await fetch(`${urls.rpc}/broadcast_tx_sync?tx=QQ==`)).json()) as {
      result: { hash: string };
    };
    expect(uri.result.hash).toBe('QQ==');
    expect(seen).not.toContain('block');
    const unknown = (await (
      await fetch(urls.rpc, {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'nope' }),
      })
    ).json()) as { error: { code: number } };
    expect(unknown.error.code).toBe(-32601);
    const eth = (await (
      await fetch(urls.jsonRpc!, {
        method: 'POST',
        body: JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x00'] },
          { jsonrpc: '2.0', id: 2, method: 'eth_nope', params: [] },
        ]),
      })
    ).json()) as Array<{ result?: string; error?: { code: number } }>;
    expect(eth[0]!.result).toBe('0xabc');
    expect(eth[1]!.error!.code).toBe(-32601);
  });
});

describe('faults and live mode', () => {
  it('injects 5xx, 429, resets and short REST pages at the configured rates; /sim routes are never faulted', async () => {
    const { urls } = await start({ txsPerBlock: '6', faults: '5xx=0.2,429=0.2,reset=0.1,shortpage=1' });
    const statuses = new Map<string, number>();
    for (let i = 0; i < 120; i++) {
      let key: string;
      try {
        key = String((await fetch(`${urls.rpc}/status`)).status);
      } catch {
        key = 'reset';
      }
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
    for (const k of ['200', '503', '429', 'reset']) expect(statuses.get(k) ?? 0).toBeGreaterThan(3);
    for (let i = 0; i < 20; i++) expect((await fetch(`${urls.rest}/sim/v1/truth/block/3`)).status).toBe(200);
    let short = false;
    for (let i = 0; i < 30 && !short; i++) {
      try {
        const res = await fetch(`${urls.rest}/cosmos/tx/v1beta1/txs/block/3?pagination.limit=100`);
        if (res.status === 200) short = ((await res.json()) as { txs: unknown[] }).txs.length === 3;
      } catch {
        // a reset: try again
      }
    }
    expect(short).toBe(true);
  });

  it('--live advances the head with wall time', async () => {
    const { sim } = await start({ head: 10, live: true, blockTimeMs: 20 });
    const first = sim.head();
    await new Promise((r) => setTimeout(r, 120));
    expect(sim.head()).toBeGreaterThan(first);
  });

  it('the CLI prints one ready line with the three URLs', async () => {
    const child = spawn(process.execPath, simCliArgv(['--vm', 'evm', '--fast-signatures']), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: string) => {
        out += c;
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('exit', () => reject(new Error(`exited before ready: ${out}`)));
    });
    child.kill('SIGTERM');
    expect(line).toMatch(
      /^sim ready rpc=http:\/\/127\.0\.0\.1:\d+ rest=http:\/\/127\.0\.0\.1:\d+ json-rpc=http:\/\/127\.0\.0\.1:\d+ vm=evm /,
    );
    expect(line).toContain('signatures=fast (do not verify)');
  });
});
