import { z } from 'zod';
import { AppError } from '../shared/errors.js';
import type { RestClient } from './rest.js';
import { INGEST_RETRY, withRetry, type RetryPolicy } from './retry.js';

/** Cosmos REST state reads for the rich list: accounts, module accounts, bank balances, denom contracts. */
export interface BankState {
  /** Every account address (bech32) at a height: the auth accounts and the module accounts. */
  accountsAt(height: number): Promise<string[]>;
  /** All bank balances of an account at a height. */
  balancesAt(address: string, height: number): Promise<Array<{ denom: string; amount: bigint }>>;
  /** minievm: the ERC20 contract (lower-case 0x hex) backing a bank denom, undefined when none. */
  contractOfDenom(denom: string): Promise<string | undefined>;
  /** minievm: the bank denom an ERC20 contract backs, undefined when none. */
  denomOfContract(contract: string): Promise<string | undefined>;
  /** Move: the bank denom of a fungible asset's metadata address, undefined when it has none. */
  denomOfMetadata(metadata: string): Promise<string | undefined>;
}

const PAGE = 500;
const accountsPage = z.object({
  accounts: z.array(z.object({ address: z.string().optional() }).passthrough()).default([]),
  pagination: z.object({ total: z.string().optional() }).passthrough().nullish(),
});
const moduleAccounts = z.object({
  accounts: z.array(
    z.object({ base_account: z.object({ address: z.string() }).passthrough() }).passthrough(),
  ),
});
const balancesPage = z.object({
  balances: z.array(z.object({ denom: z.string(), amount: z.string().regex(/^\d+$/) })),
});
const denomContract = z.object({ address: z.string() });
/** x/move Query/Denom and minievm Query/Denom answer alike. */
const metadataDenom = z.object({ denom: z.string().min(1) });

/**
 * Each read is retried on its own (transient node errors, rotation through the transport), so a
 * snapshot of many accounts survives a flaky node; a read that keeps failing fails the caller.
 */
export function createBankState(
  rest: RestClient,
  options: { policy?: RetryPolicy; signal?: AbortSignal } = {},
): BankState {
  const policy = options.policy ?? { ...INGEST_RETRY, maxAttempts: 10 };
  const get = (path: string, height?: number) =>
    withRetry(() => rest.getJson(path, height === undefined ? {} : { height }), {
      policy,
      what: `rest ${path}`,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const parse = <T>(schema: z.ZodType<T>, value: unknown, path: string): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new AppError(
        'malformed_state',
        `rest ${path}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`,
      );
    }
    return parsed.data;
  };
  return {
    async accountsAt(height) {
      const addresses: string[] = [];
      for (let offset = 0; ; offset += PAGE) {
        const path = `/cosmos/auth/v1beta1/accounts?pagination.offset=${offset}&pagination.limit=${PAGE}`;
        const page = parse(accountsPage, await get(path, height), path);
        for (const a of page.accounts) if (a.address) addresses.push(a.address);
        if (page.accounts.length < PAGE) break;
      }
      const path = '/cosmos/auth/v1beta1/module_accounts';
      const modules = parse(moduleAccounts, await get(path, height), path);
      return [...new Set([...addresses, ...modules.accounts.map((m) => m.base_account.address)])];
    },
    async balancesAt(address, height) {
      const path = `/cosmos/bank/v1beta1/balances/${address}?pagination.limit=1000`;
      const page = parse(balancesPage, (await get(path, height)) ?? { balances: [] }, path);
      return page.balances.map((b) => ({ denom: b.denom, amount: BigInt(b.amount) }));
    },
    async contractOfDenom(denom) {
      const path = `/minievm/evm/v1/contracts/by_denom?denom=${encodeURIComponent(denom)}`;
      const found = await get(path);
      if (found === undefined) return undefined;
      const address = parse(denomContract, found, path).address.toLowerCase();
      return /^0x[0-9a-f]{40}$/.test(address) ? address : undefined;
    },
    async denomOfContract(contract) {
      const path = `/minievm/evm/v1/denoms/${contract}`;
      const found = await get(path);
      return found === undefined ? undefined : parse(metadataDenom, found, path).denom;
    },
    async denomOfMetadata(metadata) {
      const path = `/initia/move/v1/denom?metadata=${encodeURIComponent(metadata)}`;
      const found = await get(path);
      return found === undefined ? undefined : parse(metadataDenom, found, path).denom;
    },
  };
}
