import { Writable } from 'node:stream';
import { Command } from 'commander';
import { pino } from 'pino';
import { registerVip } from '../../src/bin/commands/vip.js';
import { createBackend, VIP_OPTION_DEFAULTS, type VipDeps, type VipOptions } from '../../src/vip/setup.js';
import { KEYS, type Harness } from './harness.js';

/** CLI dependencies for in-process backends: both test keys in the environment, silent logs. */
export const quietDeps = {
  env: { DEPLOYER_KEY: KEYS.deployer, OTHER_KEY: KEYS.other },
  logger: pino({ level: 'silent' }),
  out: () => undefined,
};

export type TestKey = 'deployer' | 'other';

/** Options as the CLI would build them (its defaults) against the harness chain, signing with a test key. */
export function harnessOptions(
  h: Harness,
  vm: VipOptions['vm'],
  contract: string,
  key: TestKey = 'deployer',
  extra: Partial<VipOptions> = {},
): VipOptions {
  return {
    ...VIP_OPTION_DEFAULTS,
    vm,
    rest: h.server.url,
    chainId: h.chain.options.chainId,
    gasPrices: '0.015umin',
    contract,
    keyEnv: key === 'deployer' ? 'DEPLOYER_KEY' : 'OTHER_KEY',
    confirmTimeoutMs: 2000,
    pollMs: 5,
    ...extra,
  };
}

/** An in-process VIP backend against the harness chain. */
export async function harnessBackend(
  h: Harness,
  vm: VipOptions['vm'],
  contract: string,
  key: TestKey = 'deployer',
  extra: Partial<VipOptions> = {},
) {
  return (await createBackend(harnessOptions(h, vm, contract, key, extra), quietDeps)).backend;
}

export interface RunnerOptions {
  /** Collects the log lines (debug level); without it logs are silent. */
  logs?: string[];
  /** The Ledger transport `--ledger` opens. */
  openLedger?: VipDeps['openLedger'];
}

/**
 * Runs `vip <args>` in-process (as the CLI would) with this environment; answers the last
 * record it printed.
 */
export function vipRunner(env: Record<string, string>, options: RunnerOptions = {}) {
  const { logs, openLedger } = options;
  const logger = logs
    ? pino(
        { level: 'debug' },
        new Writable({
          write(chunk: Buffer, _enc, cb) {
            logs.push(chunk.toString());
            cb();
          },
        }),
      )
    : pino({ level: 'silent' });
  return async (args: string[]): Promise<Record<string, unknown>> => {
    const out: Record<string, unknown>[] = [];
    const program = new Command('x').exitOverride();
    registerVip(program, { env, logger, out: (r) => out.push(r), ...(openLedger ? { openLedger } : {}) });
    await program.parseAsync(['node', 'x', 'vip', ...args]);
    return out[out.length - 1] as Record<string, unknown>;
  };
}
