import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

/** Well-known anvil dev keys (mnemonic "test test … junk", m/44'/60'/0'/0/i). */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9bde5c8dd19e5',
] as const;

export interface AnvilHandle {
  url: string;
  chainId: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}`);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('anvil did not start');
}

/** Starts the anvil binary (npm @foundry-rs/anvil-linux-amd64, the platform package of @foundry-rs/anvil) on a free port; stop() kills exactly that process. */
export async function startAnvil(chainId = 31337, extraArgs: string[] = []): Promise<AnvilHandle> {
  const port = await freePort();
  const bin = path.resolve('node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');
  const child = spawn(
    bin,
    ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent', ...extraArgs],
    {
      stdio: 'ignore',
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child);
  return {
    url,
    chainId,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The viem chain description of a running anvil. */
export function anvilChain(anvil: AnvilHandle) {
  return {
    id: anvil.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'eth', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.url] } },
  } as const;
}
