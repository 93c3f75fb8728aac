import { z } from 'zod';
import { flagProblem, parseFlags } from '../shared/config.js';
import type { SimulatorOptions, VmType } from './types.js';

/**
 * The `sim` command's config: its flags (as commander hands them over, camelCase, all text)
 * parsed once into frozen simulator options. Every problem names its flag; all are reported at once.
 */

/** The simulator's options from flags; the command adds its logger and, with `vip`, the VIP chain model. */
export interface SimCommandOptions extends Omit<SimulatorOptions, 'logger' | 'extensions'> {
  /** Serve the VIP chain model and an L1 vip::ModuleStore too. */
  vip: boolean;
}

export const SIM_DEFAULTS = {
  seed: 1,
  host: '127.0.0.1',
  rpcPort: 26657,
  restPort: 1317,
  jsonRpcPort: 8545,
  blockTimeMs: 500,
} as const;

const nonNegativeInteger = (flag: string, fallback?: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return fallback;
      if (!/^\d+$/.test(value))
        return flagProblem(ctx, `${flag} must be a non-negative integer, got "${value}"`);
      return Number(value);
    });

const optionalText = z.string().optional();
const switchFlag = z
  .unknown()
  .optional()
  .transform((value) => value === true);

const simFlagsSchema = z.object({
  vm: z
    .unknown()
    .optional()
    .transform((value, ctx): VmType => {
      if (value === 'move' || value === 'wasm' || value === 'evm') return value;
      return flagProblem(ctx, `--vm must be move, wasm or evm, got "${String(value)}"`, 'invalid_vm');
    }),
  chainId: optionalText,
  seed: nonNegativeInteger('--seed', SIM_DEFAULTS.seed),
  host: z.string().default(SIM_DEFAULTS.host),
  rpcPort: nonNegativeInteger('--rpc-port', SIM_DEFAULTS.rpcPort),
  restPort: nonNegativeInteger('--rest-port', SIM_DEFAULTS.restPort),
  jsonRpcPort: nonNegativeInteger('--json-rpc-port', SIM_DEFAULTS.jsonRpcPort),
  head: nonNegativeInteger('--head'),
  lowestHeight: nonNegativeInteger('--lowest-height'),
  keepBlocks: nonNegativeInteger('--keep-blocks'),
  lagBlocks: nonNegativeInteger('--lag-blocks'),
  upgradeHeight: nonNegativeInteger('--upgrade-height'),
  upgradeEvery: nonNegativeInteger('--upgrade-every'),
  live: switchFlag,
  blockTimeMs: nonNegativeInteger('--block-time-ms', SIM_DEFAULTS.blockTimeMs),
  txsPerBlock: optionalText,
  faults: optionalText,
  replay: optionalText,
  fastSignatures: switchFlag,
  accounts: nonNegativeInteger('--accounts'),
  keyringSeed: nonNegativeInteger('--keyring-seed'),
  nftShare: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(value))
        return flagProblem(ctx, `--nft-share must be a number in (0, 1], got "${value}"`);
      return Number(value);
    }),
  vip: switchFlag,
});

/** `sim` flags → frozen options; optional settings that are not given are left out. */
export function loadSimOptions(flags: Readonly<Record<string, unknown>>): Readonly<SimCommandOptions> {
  const { upgradeHeight, upgradeEvery, ...parsed } = parseFlags(
    simFlagsSchema.superRefine(checkUpgrade),
    flags,
  );
  // docs/node-data.md §4.3: one upgrade option, from the flag pair.
  const upgrade =
    upgradeHeight === undefined
      ? undefined
      : { height: upgradeHeight, ...(upgradeEvery === undefined ? {} : { every: upgradeEvery }) };
  const given = Object.entries({ ...parsed, upgrade }).filter(([, value]) => value !== undefined);
  return Object.freeze(Object.fromEntries(given) as unknown as SimCommandOptions);
}

/** --upgrade-every only with --upgrade-height; both at least 1. */
function checkUpgrade(
  flags: { upgradeHeight?: number | undefined; upgradeEvery?: number | undefined },
  ctx: z.RefinementCtx,
): void {
  if (flags.upgradeHeight === 0) flagProblem(ctx, '--upgrade-height must be at least 1, got "0"');
  if (flags.upgradeEvery === 0) flagProblem(ctx, '--upgrade-every must be at least 1, got "0"');
  if (flags.upgradeEvery !== undefined && flags.upgradeHeight === undefined)
    flagProblem(ctx, '--upgrade-every needs --upgrade-height');
}
