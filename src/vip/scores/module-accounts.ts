import { createHash } from 'node:crypto';
import { requestOnce, unreachable } from '../../node/transport.js';
import { AppError } from '../../shared/errors.js';

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

/** Module accounts the node lists (`/cosmos/auth/v1beta1/module_accounts`), any address field. */
export async function nodeModuleAccounts(rest: string, timeoutMs = 10_000): Promise<string[]> {
  const res = await requestOnce(
    { name: 'REST', baseUrl: rest, timeoutMs },
    { method: 'GET', path: '/cosmos/auth/v1beta1/module_accounts' },
  ).catch((err: unknown) => {
    throw unreachable('REST', rest, err);
  });
  const body = parseJsonObject(res.text) as { accounts?: Record<string, unknown>[] };
  if (res.status !== 200 || !Array.isArray(body.accounts)) {
    throw new AppError('node_error', `module accounts from ${res.endpoint}: HTTP ${res.status}`);
  }
  return body.accounts
    .map(
      (a) =>
        (a.base_account as { address?: string } | undefined)?.address ?? (a.address as string | undefined),
    )
    .filter((a): a is string => typeof a === 'string');
}

function parseJsonObject(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}
