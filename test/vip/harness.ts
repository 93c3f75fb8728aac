import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { pino } from 'pino';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { registerVip } from '../../src/bin/commands/vip.js';
import { toBech32 } from '../../src/shared/address.js';
import { addressOfPublicKey } from '../../src/vip/signer.js';
import { createVipChain, type VipChain, type VipChainOptions } from '../../src/sim/vip/chain.js';
import { createVipExtension } from '../../src/sim/vip/extension.js';
import { serveExtensions, type ExtensionServer } from '../../src/sim/vip/server.js';

export const KEYS = {
  deployer: '0x' + '11'.repeat(32),
  other: '0x' + '22'.repeat(32),
} as const;

export function bech32Of(hexKey: string): string {
  const pub = secp256k1.getPublicKey(Buffer.from(hexKey.slice(2), 'hex'), true);
  return toBech32(addressOfPublicKey(pub, 'eth_secp256k1'), 'init');
}

/** A synthetic module: Move magic + the identifier; the model does not execute bytecode. */
export const FAKE_MOVE_MODULE = Buffer.concat([
  Buffer.from('a11ceb0b06000000', 'hex'),
  Buffer.from('vip_score'),
]);
export const FAKE_WASM = Buffer.from('0061736d01000000', 'hex');

/** Where a `vip` command finds a Move/Wasm chain. */
export interface ChainEndpoints {
  vm: 'move' | 'wasm';
  rest: string;
  /** CometBFT RPC (the rollup version); left out when the chain serves none. */
  rpc?: string;
  chainId: string;
}

/**
 * The global `vip` flags for a chain at 0.015umin gas with fast polling; `signing` says how to
 * sign (`--key-env NAME`, `--ledger`, `--key-file …`) plus any other global flag.
 */
export function chainArgv(chain: ChainEndpoints, ...signing: string[]): string[] {
  return [
    '--vm',
    chain.vm,
    '--rest',
    chain.rest,
    ...(chain.rpc === undefined ? [] : ['--rpc', chain.rpc]),
    '--chain-id',
    chain.chainId,
    '--gas-prices',
    '0.015umin',
    ...signing,
    '--poll-ms',
    '5',
  ];
}

export interface Harness {
  vm: 'move' | 'wasm';
  chain: VipChain;
  server: ExtensionServer;
  dir: string;
  logs: string[];
  outputs: Record<string, unknown>[];
  /**
   * Resolves once `count` more log lines matching `pattern` have been written (counting from this
   * call): the way to wait for what the command has done, rather than for a guessed time.
   */
  logsMatching(pattern: RegExp, count?: number): Promise<void>;
  /** Runs `rollup-indexer vip <args>` in-process; answers the last printed record. */
  vip(args: string[], env?: Record<string, string>): Promise<Record<string, unknown>>;
  baseArgs(key?: keyof typeof KEYS): string[];
  file(name: string, content: string | Uint8Array): Promise<string>;
  close(): Promise<void>;
}

export async function startHarness(
  vm: 'move' | 'wasm',
  extra: Partial<VipChainOptions> = {},
): Promise<Harness> {
  const chain = createVipChain({
    chainId: `mini${vm}-test`,
    vm,
    minGasPrice: { amount: 0.015, denom: 'umin' },
    version: 'v1.0.2',
    ...extra,
  });
  chain.fundAccount(bech32Of(KEYS.deployer));
  chain.fundAccount(bech32Of(KEYS.other));
  const server = await serveExtensions([createVipExtension(chain)]);
  const dir = await mkdtemp(path.join(tmpdir(), `vip-${vm}-`));
  const logs: string[] = [];
  const outputs: Record<string, unknown>[] = [];
  const watchers = new Set<{ pattern: RegExp; left: number; done: () => void }>();
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const line = chunk.toString();
      logs.push(line);
      for (const w of watchers) {
        if (w.pattern.test(line) && --w.left === 0) {
          watchers.delete(w);
          w.done();
        }
      }
      cb();
    },
  });
  const env = { DEPLOYER_KEY: KEYS.deployer, OTHER_KEY: KEYS.other };
  const h: Harness = {
    vm,
    chain,
    server,
    dir,
    logs,
    outputs,
    logsMatching: (pattern, count = 1) =>
      new Promise<void>((done) => void watchers.add({ pattern, left: count, done })),
    async vip(args, moreEnv = {}) {
      const program = new Command('rollup-indexer').exitOverride();
      const logger = pino({ level: 'debug' }, sink);
      registerVip(program, { env: { ...env, ...moreEnv }, logger, out: (r) => outputs.push(r) });
      const before = outputs.length;
      await program.parseAsync(['node', 'rollup-indexer', 'vip', ...args]);
      return outputs.length > before ? (outputs[outputs.length - 1] as Record<string, unknown>) : {};
    },
    baseArgs(key = 'deployer') {
      return chainArgv(
        { vm, rest: server.url, rpc: server.url, chainId: chain.options.chainId },
        '--key-env',
        key === 'deployer' ? 'DEPLOYER_KEY' : 'OTHER_KEY',
        '--confirm-timeout-ms',
        '2000',
      );
    },
    async file(name, content) {
      const p = path.join(dir, name);
      await writeFile(p, content);
      return p;
    },
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** n distinct addresses (20-byte hex) with amounts 1..n, as CSV text. */
export function scoresCsv(n: number, offset = 0): { csv: string; total: bigint } {
  let total = 0n;
  const lines = ['address,amount'];
  for (let i = 1; i <= n; i++) {
    const addr = '0xab' + (i + offset).toString(16).padStart(38, '0');
    lines.push(`${addr},${i}`);
    total += BigInt(i);
  }
  return { csv: lines.join('\n') + '\n', total };
}
