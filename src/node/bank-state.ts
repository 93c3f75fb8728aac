import { QueryAllBalancesRequest, QueryAllBalancesResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { z } from 'zod';
import { mapBounded } from '../shared/map-bounded.js';
import type { CometClient } from './cometbft.js';
import { AppError } from '../shared/errors.js';
import type { NodePurpose } from './metrics.js';
import type { RestClient } from './rest.js';
import { INGEST_RETRY, withRetry, type RetryPolicy } from './retry.js';

/** A module account as `/cosmos/auth/v1beta1/module_accounts` lists it. */
export interface ModuleAccount {
  address: string;
  name: string;
  permissions: string[];
}

/** Cosmos REST state reads for the rich list: accounts, module accounts, bank balances, denom contracts. */
export interface BankState {
  /** Every account address (bech32) at a height: the auth accounts and the module accounts. */
  accountsAt(height: number): Promise<string[]>;
  /** The chain's module accounts with their permissions. */
  moduleAccounts(): Promise<ModuleAccount[]>;
  /**
   * The bank's total supply of every denom at a height (node spelling); undefined when the node
   * does not serve it (404).
   */
  supplyAt(height: number): Promise<Array<{ denom: string; amount: bigint }> | undefined>;
  /** All bank balances of an account at a height. */
  balancesAt(address: string, height: number): Promise<Array<{ denom: string; amount: bigint }>>;
  /**
   * All bank balances of each account at a height: in JSON-RPC batches of `abci_query`
   * (`/cosmos.bank.v1beta1.Query/AllBalances`, one HTTP request per batch) when the RPC client is
   * given, else one REST read per account, a few at a time. An account with more balances than one
   * page holds is read again by REST, paged.
   */
  balancesOfEach(
    addresses: readonly string[],
    height: number,
  ): Promise<Array<Array<{ denom: string; amount: bigint }>>>;
  /** minievm: the ERC20 contract (lower-case 0x hex) backing a bank denom, undefined when none. */
  contractOfDenom(denom: string): Promise<string | undefined>;
  /** minievm: the bank denom an ERC20 contract backs, undefined when none. */
  denomOfContract(contract: string): Promise<string | undefined>;
  /** Move: the bank denom of a fungible asset's metadata address, undefined when it has none. */
  denomOfMetadata(metadata: string): Promise<string | undefined>;
  /** Move: a fungible asset's `0x1::fungible_asset::Metadata` (symbol, decimals), undefined when none. */
  fungibleAssetMetadata(metadata: string): Promise<{ symbol: string; decimals: number } | undefined>;
}

const ACCOUNTS_PAGE = 500;
const BALANCES_PAGE = 1000;
/** abci_query calls per JSON-RPC batch: small answers, so many fit one request. */
const BALANCE_QUERIES_PER_BATCH = 100;
/** Batches (or REST reads) in flight at once; the transport caps its connections on top of this. */
const BALANCE_READS = 4;
const REST_BALANCE_READS = 16;
const ALL_BALANCES = '/cosmos.bank.v1beta1.Query/AllBalances';
const pagination = z
  .object({ next_key: z.string().nullish(), total: z.string().regex(/^\d*$/).nullish() })
  .passthrough()
  .nullish();
const accountsPage = z.object({
  accounts: z.array(z.unknown()).default([]),
  pagination,
});
const moduleAccounts = z.object({
  accounts: z.array(
    z
      .object({
        base_account: z.object({ address: z.string() }).passthrough(),
        name: z.string().default(''),
        permissions: z.array(z.string()).nullish(),
      })
      .passthrough(),
  ),
});
const coins = z.array(z.object({ denom: z.string(), amount: z.string().regex(/^\d+$/) })).default([]);
const balancesPage = z.object({ balances: coins, pagination });
const supplyPage = z.object({ supply: coins, pagination });
const denomContract = z.object({ address: z.string() });
const moveResource = z.object({ resource: z.object({ move_resource: z.string() }).passthrough() });
const faMetadata = z.object({
  data: z.object({ symbol: z.string(), decimals: z.coerce.number().int().min(0) }).passthrough(),
});
/** x/move Query/Denom and minievm Query/Denom answer alike. */
const metadataDenom = z.object({ denom: z.string().min(1) });

/**
 * The address of an account as `/cosmos/auth/v1beta1/accounts` lists it (docs/node-data.md §1.3: "either
 * `address` or `base_account.address`"): a BaseAccount has it at the top; a ModuleAccount and the
 * minievm ContractAccount / ShorthandAccount and Move ObjectAccount / TableAccount under
 * `base_account`; a vesting account under `base_vesting_account.base_account`.
 */
export function accountAddress(account: unknown): string | undefined {
  if (typeof account !== 'object' || account === null) return undefined;
  const a = account as Record<string, unknown>;
  if (typeof a.address === 'string' && a.address !== '') return a.address;
  return accountAddress(a.base_account) ?? accountAddress(a.base_vesting_account);
}

/** What every read shares: the retried REST GET and the schema check that names the path. */
interface BankReads {
  get(path: string, purpose: NodePurpose, height?: number): Promise<unknown>;
  policy: RetryPolicy;
  signal: AbortSignal | undefined;
}

type PageReader<T> = (
  value: unknown,
  path: string,
) => { items: T[]; nextKey: string | undefined; total: number | undefined };

function parseState<T>(schema: z.ZodType<T>, value: unknown, path: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AppError(
      'malformed_state',
      `rest ${path}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`,
    );
  }
  return parsed.data;
}

/**
 * Every item of a paginated list: by `next_key` while the node hands one out; when it stops
 * early (next_key null while `total` says more, docs/node-data.md §1.3), by offset from the count so
 * far. cosmos-sdk counts `total` only when asked (`count_total`) and only on an offset page, so
 * the first page asks for it. A node that hands out a key twice, or more items than its total,
 * would page forever: that stops with an error naming the path.
 */
async function allPages<T>(
  reads: BankReads,
  list: { path: string; purpose: NodePurpose; limit: number; height: number },
  read: PageReader<T>,
): Promise<T[]> {
  const { path, purpose, limit, height } = list;
  const items: T[] = [];
  const keys = new Set<string>();
  let nextKey: string | undefined;
  let total: number | undefined;
  for (;;) {
    const query = nextKey
      ? `pagination.key=${encodeURIComponent(nextKey)}`
      : `pagination.offset=${items.length}${total === undefined ? '&pagination.count_total=true' : ''}`;
    const pagePath = `${path}?pagination.limit=${limit}&${query}`;
    const page = read(await reads.get(pagePath, purpose, height), pagePath);
    items.push(...page.items);
    // A key page answers 0 (not counted).
    if (page.total !== undefined && page.total > 0) total = page.total;
    if (total !== undefined && items.length > total) {
      throw new AppError(
        'malformed_state',
        `rest ${path} at ${height}: ${items.length} items listed, more than the total ${total}`,
      );
    }
    nextKey = page.nextKey;
    if (nextKey) {
      if (keys.has(nextKey)) {
        throw new AppError(
          'malformed_state',
          `rest ${path} at ${height}: next_key ${nextKey} handed out twice`,
        );
      }
      keys.add(nextKey);
      continue;
    }
    if (page.items.length > 0 && total !== undefined && items.length < total) continue;
    return items;
  }
}

async function listModuleAccounts(reads: BankReads): Promise<ModuleAccount[]> {
  const path = '/cosmos/auth/v1beta1/module_accounts';
  return parseState(moduleAccounts, await reads.get(path, 'module_accounts'), path).accounts.map((m) => ({
    address: m.base_account.address,
    name: m.name,
    permissions: m.permissions ?? [],
  }));
}

async function balancesAt(reads: BankReads, address: string, height: number) {
  const path = `/cosmos/bank/v1beta1/balances/${address}`;
  const list = { path, purpose: 'balance' as const, limit: BALANCES_PAGE, height };
  const balances = await allPages(reads, list, (value, pagePath) => {
    const page = parseState(balancesPage, value ?? { balances: [] }, pagePath);
    return { items: page.balances, ...pageInfo(page.pagination) };
  });
  return balances.map((b) => ({ denom: b.denom, amount: BigInt(b.amount) }));
}

async function supplyAt(reads: BankReads, height: number) {
  const list = {
    path: '/cosmos/bank/v1beta1/supply',
    purpose: 'supply' as const,
    limit: BALANCES_PAGE,
    height,
  };
  let served = true;
  const supply = await allPages(reads, list, (value, pagePath) => {
    served &&= value !== undefined;
    const page = parseState(supplyPage, value ?? { supply: [] }, pagePath);
    return { items: page.supply, ...pageInfo(page.pagination) };
  });
  return served ? supply.map((c) => ({ denom: c.denom, amount: BigInt(c.amount) })) : undefined;
}

async function accountsAt(reads: BankReads, height: number) {
  const list = {
    path: '/cosmos/auth/v1beta1/accounts',
    purpose: 'accounts' as const,
    limit: ACCOUNTS_PAGE,
    height,
  };
  const listed = await allPages(reads, list, (value, path) => {
    const page = parseState(accountsPage, value ?? {}, path);
    return { items: page.accounts, ...pageInfo(page.pagination) };
  });
  const addresses = listed.map(accountAddress).filter((a) => a !== undefined);
  const modules = await listModuleAccounts(reads);
  return [...new Set([...addresses, ...modules.map((m) => m.address)])];
}

/** One batch of AllBalances queries; an account whose answer has a next page is read by REST. */
async function queriedBalances(
  reads: BankReads,
  addresses: readonly string[],
  height: number,
  comet: CometClient,
) {
  const queries = addresses.map((address) => ({
    path: ALL_BALANCES,
    data: QueryAllBalancesRequest.encode({
      address,
      pagination: {
        key: new Uint8Array(),
        offset: 0n,
        limit: BigInt(BALANCES_PAGE),
        countTotal: false,
        reverse: false,
      },
      resolveDenom: false,
    }).finish(),
  }));
  const answers = await withRetry(() => comet.abciQueries!(queries, height, 'balance'), {
    policy: reads.policy,
    what: `rpc abci_query ${ALL_BALANCES} x${addresses.length} at ${height}`,
    ...(reads.signal ? { signal: reads.signal } : {}),
  });
  return Promise.all(answers.map((value, i) => decodedBalances(reads, value, addresses[i]!, height)));
}

async function decodedBalances(reads: BankReads, value: Uint8Array, address: string, height: number) {
  let decoded: QueryAllBalancesResponse;
  try {
    decoded = QueryAllBalancesResponse.decode(value);
  } catch (err) {
    throw new AppError('malformed_state', `abci_query ${ALL_BALANCES} of ${address}: not protobuf`, {
      cause: err,
    });
  }
  if ((decoded.pagination?.nextKey.length ?? 0) > 0) return balancesAt(reads, address, height);
  return decoded.balances.map((b) => {
    if (!/^\d+$/.test(b.amount)) {
      throw new AppError('malformed_state', `abci_query ${ALL_BALANCES} of ${address}: amount ${b.amount}`);
    }
    return { denom: b.denom, amount: BigInt(b.amount) };
  });
}

async function balancesOfEach(
  reads: BankReads,
  addresses: readonly string[],
  height: number,
  comet?: CometClient,
) {
  if (!comet?.abciQueries)
    return mapBounded(addresses, REST_BALANCE_READS, (a) => balancesAt(reads, a, height));
  const chunks: string[][] = [];
  for (let i = 0; i < addresses.length; i += BALANCE_QUERIES_PER_BATCH)
    chunks.push(addresses.slice(i, i + BALANCE_QUERIES_PER_BATCH));
  const read = await mapBounded(chunks, BALANCE_READS, (chunk) =>
    queriedBalances(reads, chunk, height, comet),
  );
  return read.flat();
}

async function fungibleAssetMetadata(reads: BankReads, metadata: string) {
  // Without a height, as the reference reads it (docs/ingest.md §3.1): metadata does not change.
  const path =
    `/initia/move/v1/accounts/${encodeURIComponent(metadata)}/resources/by_struct_tag` +
    `?struct_tag=${encodeURIComponent('0x1::fungible_asset::Metadata')}`;
  const found = await reads.get(path, 'fa_metadata');
  if (found === undefined) return undefined;
  const text = parseState(moveResource, found, path).resource.move_resource;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError('malformed_state', `rest ${path}: move_resource is not JSON`);
  }
  const { symbol, decimals } = parseState(faMetadata, json, path).data;
  return { symbol, decimals };
}

/**
 * Each read is retried on its own (transient node errors, rotation through the transport), so a
 * snapshot of many accounts survives a flaky node; a read that keeps failing fails the caller.
 */
export function createBankState(
  rest: RestClient,
  options: { policy?: RetryPolicy; signal?: AbortSignal; comet?: CometClient } = {},
): BankState {
  const policy = options.policy ?? { ...INGEST_RETRY, maxAttempts: 10 };
  const reads: BankReads = {
    policy,
    signal: options.signal,
    get: (path, purpose, height) =>
      withRetry(() => rest.getJson(path, height === undefined ? { purpose } : { height, purpose }), {
        policy,
        what: `rest ${path}`,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
  };
  return {
    supplyAt: (height) => supplyAt(reads, height),
    accountsAt: (height) => accountsAt(reads, height),
    moduleAccounts: () => listModuleAccounts(reads),
    balancesAt: (address, height) => balancesAt(reads, address, height),
    balancesOfEach: (addresses, height) => balancesOfEach(reads, addresses, height, options.comet),
    async contractOfDenom(denom) {
      const path = `/minievm/evm/v1/contracts/by_denom?denom=${encodeURIComponent(denom)}`;
      const found = await reads.get(path, 'denom_lookup');
      if (found === undefined) return undefined;
      const address = parseState(denomContract, found, path).address.toLowerCase();
      return /^0x[0-9a-f]{40}$/.test(address) ? address : undefined;
    },
    async denomOfContract(contract) {
      const path = `/minievm/evm/v1/denoms/${contract}`;
      const found = await reads.get(path, 'denom_lookup');
      return found === undefined ? undefined : parseState(metadataDenom, found, path).denom;
    },
    async denomOfMetadata(metadata) {
      const path = `/initia/move/v1/denom?metadata=${encodeURIComponent(metadata)}`;
      const found = await reads.get(path, 'denom_lookup');
      return found === undefined ? undefined : parseState(metadataDenom, found, path).denom;
    },
    fungibleAssetMetadata: (metadata) => fungibleAssetMetadata(reads, metadata),
  };
}

function pageInfo(p: z.infer<typeof pagination>): { nextKey: string | undefined; total: number | undefined } {
  return {
    nextKey: p?.next_key ? p.next_key : undefined,
    total: p?.total ? Number(p.total) : undefined,
  };
}
