import { toBech32, tryAccountBytes } from '../../../shared/address.js';
import { moduleAddress, PUBKEY_TYPE_URL, type SimAccount } from '../../chain/keys.js';
import { pick } from '../../chain/prng.js';
import { grpcError, ok, type RestAnswer } from './blocks.js';
import type { Schedule } from '../../chain/workload.js';
import type { SimHttpRequest } from '../../types.js';

/** What state queries need: the keyring, the schedule, the head and the denoms. */
export interface StateContext {
  seed: number;
  prefix: string;
  accounts: SimAccount[];
  schedule: Schedule;
  head(): number;
  /** The lowest height whose state the node keeps (docs/node-data.md §5.3). */
  base?(): number;
  denoms: string[];
  /** The single opchild validator (proposer). */
  validator: { addressHex: string; pubKeyB64: string };
  /** Exact balances from the VM's ledger. */
  balanceOf?(address: string, denom: string, height: number): string | undefined;
  /** Bank denoms the address holds (any address: fresh recipients and module accounts too). */
  denomsOf?(address: string, height: number): string[];
  /** Accounts (0x hex) that exist at a height besides the keyring. */
  accountsAt?(height: number): string[];
  /** The bank's total supply of each denom (undefined where the VM keeps no bank ledger). */
  supplyAt?(height: number): Map<string, bigint> | undefined;
}

const BALANCE_STREAM = 40;
const MODULES = ['fee_collector', 'opchild', 'nft-transfer', 'transfer'];

/**
 * The height a state query reads: the `x-cosmos-block-height` header when present (validated
 * as the SDK does), else the head. A height below the node's lowest is refused as an SDK 0.50 node
 * refuses state it pruned (docs/node-data.md §5.3).
 */
export function queryHeight(
  ctx: { head(): number; base?(): number },
  req: SimHttpRequest,
): number | RestAnswer {
  const header = req.headers['x-cosmos-block-height'];
  if (header === undefined || header === '' || header === '0') return ctx.head();
  if (!/^\d+$/.test(header)) return grpcError(400, 3, `invalid height header "${header}"`);
  const h = Number(header);
  if (h > ctx.head()) {
    return grpcError(
      400,
      3,
      'cannot query with height in the future; please provide a valid height: invalid height',
    );
  }
  if (ctx.base && h < lowestState(ctx.base()))
    return grpcError(500, 2, `codespace sdk code 38: not found: ${prunedState(h, ctx.head())}`);
  return h;
}

/**
 * The lowest height whose state a node keeps when its lowest block is `base`: the state that block
 * executes on (a state-synced node's snapshot), so its first block can still be traced.
 */
export const lowestState = (base: number): number => Math.max(1, base - 1);

/**
 * The SDK's words for state at a height it no longer keeps (baseapp's CreateQueryContext over an
 * IAVL store): the REST gateway and minievm's JSON-RPC both pass them on.
 */
export function prunedState(height: number, head: number): string {
  return (
    `failed to load state at height ${height}; version mismatch on immutable IAVL tree; version does not exist. ` +
    `Version has either been pruned, or is for a future block height (latest height: ${head})`
  );
}

function accountOf(ctx: StateContext, text: string): SimAccount | undefined {
  const bytes = tryAccountBytes(text, ctx.prefix);
  if (!bytes) return undefined;
  const hex = Buffer.from(bytes).toString('hex');
  return ctx.accounts.find((a) => Buffer.from(a.address).toString('hex') === hex);
}

/** Txs signed by account `index` before block `height + 1` (signer of tx g is g mod K). */
export function sequenceAt(ctx: StateContext, index: number, height: number): number {
  const n = ctx.schedule.firstTx(height + 1);
  const k = ctx.accounts.length;
  return n > index ? Math.floor((n - index - 1) / k) + 1 : 0;
}

/**
 * Balances are plausible, not the sum of every transfer (that would need the whole history):
 * a large genesis grant that drifts deterministically with height.
 */
export function balanceAt(ctx: StateContext, address: string, denom: string, height: number): string {
  const salt = [...(address + denom)].reduce((n, c) => (Math.imul(n, 31) + c.charCodeAt(0)) >>> 0, 7);
  const base = 1_000_000_000_000n + BigInt(pick(ctx.seed, BALANCE_STREAM, salt, 1_000_000)) * 1_000_000n;
  return (base - BigInt(height) * BigInt(1 + (salt % 97))).toString();
}

function keyringAccountJson(ctx: StateContext, a: SimAccount, height: number) {
  return {
    '@type': '/cosmos.auth.v1beta1.BaseAccount',
    address: a.bech32,
    pub_key: { '@type': PUBKEY_TYPE_URL[a.keyType], key: Buffer.from(a.publicKey).toString('base64') },
    account_number: String(a.accountNumber),
    sequence: String(sequenceAt(ctx, a.index, height)),
  };
}

type StateRoute = (ctx: StateContext, req: SimHttpRequest) => RestAnswer | undefined;

const ACCOUNTS_PREFIX = '/cosmos/auth/v1beta1/accounts/';
const BALANCES_PREFIX = '/cosmos/bank/v1beta1/balances/';
const VALIDATOR_PREFIX = '/opinit/opchild/v1/validator/';

const pageOf = (req: SimHttpRequest) => ({
  offset: Number(req.query.get('pagination.offset') ?? '0') || 0,
  limit: Number(req.query.get('pagination.limit') ?? '100') || 100,
});

function accountRoute(ctx: StateContext, req: SimHttpRequest): RestAnswer | undefined {
  if (!req.path.startsWith(ACCOUNTS_PREFIX)) return undefined;
  const h = queryHeight(ctx, req);
  if (typeof h !== 'number') return h;
  const address = req.path.slice(ACCOUNTS_PREFIX.length);
  const account = accountOf(ctx, address);
  if (!account) return grpcError(404, 5, `account ${address} not found`);
  return ok(
    JSON.stringify({
      account: keyringAccountJson(ctx, account, h),
    }),
  );
}

function accountsRoute(ctx: StateContext, req: SimHttpRequest): RestAnswer | undefined {
  if (req.path !== '/cosmos/auth/v1beta1/accounts') return undefined;
  const h = queryHeight(ctx, req);
  if (typeof h !== 'number') return h;
  const { offset, limit } = pageOf(req);
  // The keyring first, then every other account funds reached by then (module accounts are
  // listed by module_accounts).
  const keyring = new Set(ctx.accounts.map((a) => a.hex));
  const modules = new Set(MODULES.map((m) => '0x' + Buffer.from(moduleAddress(m)).toString('hex')));
  const others = (ctx.accountsAt?.(h) ?? []).filter((a) => !keyring.has(a) && !modules.has(a));
  const all = [
    ...ctx.accounts.map((a) => ({ a, hex: a.hex })),
    ...others.map((hex) => ({ a: undefined, hex })),
  ];
  const page = all.slice(offset, offset + limit);
  return ok(
    JSON.stringify({
      accounts: page.map(({ a, hex }) =>
        a
          ? keyringAccountJson(ctx, a, h)
          : {
              '@type': '/cosmos.auth.v1beta1.BaseAccount',
              address: toBech32(Buffer.from(hex.slice(2), 'hex'), ctx.prefix),
              pub_key: null,
              account_number: String(parseInt(hex.slice(2, 10), 16)),
              sequence: '0',
            },
      ),
      pagination: { next_key: null, total: String(all.length) },
    }),
  );
}

function balancesRoute(ctx: StateContext, req: SimHttpRequest): RestAnswer | undefined {
  if (!req.path.startsWith(BALANCES_PREFIX)) return undefined;
  const h = queryHeight(ctx, req);
  if (typeof h !== 'number') return h;
  const address = req.path.slice(BALANCES_PREFIX.length);
  if (!tryAccountBytes(address, ctx.prefix)) return grpcError(400, 3, `invalid address: ${address}`);
  const known = accountOf(ctx, address) !== undefined;
  const held = new Set([...(known ? ctx.denoms : []), ...(ctx.denomsOf?.(address, h) ?? [])]);
  // Like x/bank, zero balances are not listed.
  const balances = [...held]
    .sort()
    .map((denom) => ({
      denom,
      amount: ctx.balanceOf?.(address, denom, h) ?? balanceAt(ctx, address, denom, h),
    }))
    .filter((b) => b.amount !== '0');
  return ok(JSON.stringify({ balances, pagination: { next_key: null, total: String(balances.length) } }));
}

function supplyRoute(ctx: StateContext, req: SimHttpRequest): RestAnswer | undefined {
  if (req.path !== '/cosmos/bank/v1beta1/supply') return undefined;
  const h = queryHeight(ctx, req);
  if (typeof h !== 'number') return h;
  const supply = ctx.supplyAt?.(h);
  if (!supply) return undefined;
  const { offset, limit } = pageOf(req);
  const all = [...supply].sort(([a], [b]) => (a < b ? -1 : 1));
  return ok(
    JSON.stringify({
      supply: all.slice(offset, offset + limit).map(([denom, amount]) => ({ denom, amount: String(amount) })),
      pagination: { next_key: null, total: String(all.length) },
    }),
  );
}

function moduleAccountsRoute(ctx: StateContext, req: SimHttpRequest): RestAnswer | undefined {
  if (req.path !== '/cosmos/auth/v1beta1/module_accounts') return undefined;
  return ok(
    JSON.stringify({
      accounts: MODULES.map((name, i) => ({
        '@type': '/cosmos.auth.v1beta1.ModuleAccount',
        base_account: {
          address: toBech32(moduleAddress(name), ctx.prefix),
          pub_key: null,
          account_number: String(i + 1),
          sequence: '0',
        },
        name,
        permissions: name === 'opchild' ? ['minter', 'burner'] : [],
      })),
    }),
  );
}

function validatorRoute(ctx: StateContext, req: SimHttpRequest): RestAnswer | undefined {
  if (!req.path.startsWith(VALIDATOR_PREFIX)) return undefined;
  const valoper = toBech32(Buffer.from(ctx.validator.addressHex, 'hex'), ctx.prefix + 'valoper');
  const asked = req.path.slice(VALIDATOR_PREFIX.length);
  if (asked !== valoper) return grpcError(404, 5, `validator ${asked} not found: not found`);
  return ok(
    JSON.stringify({
      validator: {
        moniker: 'rollup-sim-operator',
        operator_address: valoper,
        consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: ctx.validator.pubKeyB64 },
        cons_power: '1',
      },
    }),
  );
}

/**
 * Each state route answers its own paths (undefined for others); the first that claims a path
 * answers it. The supply route claims its path only when the VM serves a supply.
 */
const STATE_ROUTES: StateRoute[] = [
  accountRoute,
  accountsRoute,
  balancesRoute,
  supplyRoute,
  moduleAccountsRoute,
  validatorRoute,
];

export function handleStateRoutes(ctx: StateContext, req: SimHttpRequest): RestAnswer | undefined {
  for (const route of STATE_ROUTES) {
    const answer = route(ctx, req);
    if (answer) return answer;
  }
  return undefined;
}
