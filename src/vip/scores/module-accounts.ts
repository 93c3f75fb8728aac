import { createHash } from 'node:crypto';

/**
 * Module accounts never earn a score. Their addresses are derived the way the Cosmos SDK does
 * (`authtypes.NewModuleAddress(name)` = the first 20 bytes of sha256(name)), so the set is known
 * without a node and is the same for everyone who recomputes a file; accounts a node lists
 * (`/cosmos/auth/v1beta1/module_accounts`) can be added on top.
 */
export const STANDARD_MODULE_NAMES: readonly string[] = [
  'bonded_tokens_pool',
  'distribution',
  'evm',
  'fee_collector',
  'gov',
  'ibc',
  'icacontroller',
  'icahost',
  'interchainaccounts',
  'mint',
  'move',
  'nft-transfer',
  'not_bonded_tokens_pool',
  'opchild',
  'transfer',
  'wasm',
];

/** The 20-byte module address of a module name, as lower-case hex. */
export function moduleAddressHex(name: string): string {
  return createHash('sha256').update(name).digest().subarray(0, 20).toString('hex');
}
