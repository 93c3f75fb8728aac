import { InputError } from '../shared/errors.js';
import { parseNftShare, type NftShare } from './chain/nft-lifecycle.js';
import type { UpgradeSpec } from './chain/upgrade.js';
import type { SimulatorOptions } from './types.js';

/** The simulator's options, checked once (each problem names its flag) before anything starts. */

const DEFAULT_ACCOUNTS = 64;
const MAX_ACCOUNTS = 100_000;

/** The simulator's options checked, with every default filled in. */
export interface Resolved {
  vm: SimulatorOptions['vm'];
  chainId: string;
  seed: number;
  keyringSeed: number;
  host: string;
  blockTimeMs: number;
  fastSignatures: boolean;
  accounts: number;
  nftShare: NftShare | undefined;
  upgrade: Required<UpgradeSpec> | undefined;
}

export function resolveOptions(options: SimulatorOptions): Resolved {
  if (!['move', 'wasm', 'evm'].includes(options.vm)) {
    throw new InputError('invalid_vm', `--vm must be move, wasm or evm, got "${options.vm}"`);
  }
  const seed = options.seed ?? 1;
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new InputError('invalid_seed', '--seed must be a non-negative integer');
  const keyringSeed = options.keyringSeed ?? seed;
  if (!Number.isSafeInteger(keyringSeed) || keyringSeed < 0)
    throw new InputError('invalid_seed', 'keyringSeed must be a non-negative integer');
  const accounts = options.accounts ?? DEFAULT_ACCOUNTS;
  // Two at least: a transfer's recipient is another account of the keyring.
  if (!Number.isSafeInteger(accounts) || accounts < 2 || accounts > MAX_ACCOUNTS)
    throw new InputError('invalid_accounts', `--accounts must be an integer from 2 to ${MAX_ACCOUNTS}`);
  return {
    vm: options.vm,
    chainId: options.chainId ?? `mini${options.vm}-1`,
    seed: seed >>> 0,
    keyringSeed: keyringSeed >>> 0,
    host: options.host ?? '127.0.0.1',
    blockTimeMs: options.blockTimeMs ?? 500,
    fastSignatures: options.fastSignatures ?? false,
    accounts,
    nftShare: options.nftShare === undefined ? undefined : parseNftShare(options.nftShare),
    upgrade: options.upgrade === undefined ? undefined : resolveUpgrade(options.upgrade),
  };
}

function resolveUpgrade(spec: UpgradeSpec): Required<UpgradeSpec> {
  const every = spec.every ?? 3;
  if (!Number.isSafeInteger(spec.height) || spec.height < 1 || !Number.isSafeInteger(every) || every < 1)
    throw new InputError('invalid_upgrade', 'upgrade height and every must be positive integers');
  return { height: spec.height, every };
}
