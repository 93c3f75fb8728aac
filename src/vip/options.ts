import { z } from 'zod';
import { flagProblem, parseFlags } from '../shared/config.js';
import { InputError } from '../shared/errors.js';
import { VIP_OPTION_DEFAULTS as DEFAULTS, type VipOptions } from './setup.js';
import type { VmType } from './types.js';

/**
 * The `vip` command's config: its flags (as commander hands them over, camelCase) and the
 * variables that stand in for them, parsed once into frozen VipOptions. Every problem names its
 * flag; all of them are reported at once.
 */

export type VipFlags = Readonly<Record<string, unknown>>;
type Env = Readonly<Record<string, string | undefined>>;

const text = (value: unknown) => String(value);

/** A whole number (digits only), or the default when the flag is absent. */
const wholeNumber = (flag: string, fallback?: number) =>
  z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return fallback;
      if (!/^\d+$/.test(text(value)))
        return flagProblem(ctx, `${flag} expects a whole number, got "${text(value)}"`);
      return Number(value);
    });

const positiveNumber = (flag: string, fallback: number) =>
  z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      const n = value === undefined ? fallback : Number(value);
      if (!Number.isFinite(n) || n <= 0)
        return flagProblem(ctx, `${flag} expects a positive number, got "${text(value)}"`);
      return n;
    });

const positiveWholeNumber = (flag: string) =>
  wholeNumber(flag).transform((n, ctx) =>
    n === 0 ? flagProblem(ctx, `${flag} expects a positive number, got "0"`) : n,
  );

const httpUrl = (flag: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || /^https?:\/\/\S+$/.test(value)) return value;
      return flagProblem(ctx, `${flag} must be an http(s) URL, got "${value.slice(0, 80)}"`);
    });

/** A setting given as text; an empty variable counts as unset. */
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const vipFlagsSchema = z.object({
  vm: z
    .unknown()
    .optional()
    .transform((value, ctx): VmType => {
      if (value === 'evm' || value === 'move' || value === 'wasm') return value;
      return flagProblem(ctx, '--vm evm|move|wasm is required', 'invalid_vm');
    }),
  rest: httpUrl('--rest (or VIP_REST_URL)'),
  jsonRpc: httpUrl('--json-rpc (or JSON_RPC_URL)'),
  rpc: httpUrl('--rpc (or VIP_RPC_URL)'),
  chainId: optionalText,
  gasPrices: optionalText,
  contract: optionalText,
  keyEnv: optionalText,
  keyFile: optionalText,
  gasAdjustment: positiveNumber('--gas-adjustment', DEFAULTS.gasAdjustment),
  keyIndex: wholeNumber('--key-index', DEFAULTS.keyIndex),
  keyType: z
    .enum(['eth_secp256k1', 'secp256k1'], { message: '--key-type must be eth_secp256k1 or secp256k1' })
    .default(DEFAULTS.keyType),
  ledger: z
    .unknown()
    .optional()
    .transform((v) => v === true),
  ledgerConfirm: z
    .unknown()
    .optional()
    .transform((v) => v === true),
  dryRun: z
    .unknown()
    .optional()
    .transform((v) => v === true),
  prefix: z.string().default(DEFAULTS.prefix),
  maxTxGas: wholeNumber('--max-tx-gas').transform((n) => (n === undefined ? undefined : BigInt(n))),
  maxTxBytes: wholeNumber('--max-tx-bytes', DEFAULTS.maxTxBytes),
  maxBatch: positiveWholeNumber('--max-batch'),
  confirmTimeoutMs: wholeNumber('--confirm-timeout-ms', DEFAULTS.confirmTimeoutMs),
  pollMs: wholeNumber('--poll-ms', DEFAULTS.pollMs),
});

/** Flags over the variables that stand in for them. */
function withEnvFallbacks(flags: VipFlags, env: Env): Record<string, unknown> {
  const or = (flag: string, variable: string) => flags[flag] ?? env[variable];
  return {
    ...flags,
    vm: or('vm', 'VIP_VM'),
    rest: or('rest', 'VIP_REST_URL'),
    jsonRpc: or('jsonRpc', 'JSON_RPC_URL'),
    rpc: or('rpc', 'VIP_RPC_URL'),
    chainId: or('chainId', 'VIP_CHAIN_ID'),
    gasPrices: or('gasPrices', 'VIP_GAS_PRICES'),
    contract: or('contract', 'VIP_CONTRACT'),
  };
}

/** `vip` flags + env → frozen VipOptions; unset optional settings are left out. */
export function loadVipOptions(flags: VipFlags, env: Env): Readonly<VipOptions> {
  const parsed = parseFlags(vipFlagsSchema, withEnvFallbacks(flags, env));
  const definedOnly = Object.entries(parsed).filter(([, value]) => value !== undefined);
  return Object.freeze(Object.fromEntries(definedOnly) as unknown as VipOptions);
}

/** A VIP stage flag: 1..2^64-1 (the contracts' u64; stage 0 does not exist). */
export function parseStage(value: unknown, flag: string): bigint {
  const given = String(value ?? '');
  if (!/^\d+$/.test(given) || BigInt(given) === 0n || BigInt(given) >= 1n << 64n) {
    throw new InputError(
      'invalid_stage',
      `${flag} must be a whole number between 1 and 2^64-1, got "${given}"`,
    );
  }
  return BigInt(given);
}
