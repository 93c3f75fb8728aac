import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REAL_SAMPLES } from '../../test/fixtures/decode/samples.js';
import { accountAddress, createBankState } from './bank-state.js';
import { createRestClient } from './rest.js';
import type { Transport, TransportRequest } from './transport.js';

/**
 * A node answering in the shapes a Cosmos SDK gRPC gateway gives (x/auth Any-typed accounts, x/bank
 * balances, `pagination {next_key,total}`): `pages[path][query]`, and `pages[path]['']` for a path
 * asked without a query; anything else is a 404.
 */
function stubNode(pages: Record<string, Record<string, unknown>>) {
  const asked: TransportRequest[] = [];
  const transport: Transport = {
    async request(req) {
      asked.push(req);
      const [path = '', query = ''] = req.path.split('?');
      // Parameter order does not matter; offset 0 is the default.
      const params = [...new URLSearchParams(query)]
        .filter(([k, v]) => !(k === 'pagination.offset' && v === '0'))
        .sort(([a], [b]) => (a < b ? -1 : 1));
      const body = pages[path]?.[params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')];
      if (body === undefined)
        return { status: 404, text: '{"code":5,"message":"not found"}', endpoint: 'stub' };
      return { status: 200, text: JSON.stringify(body), endpoint: 'stub' };
    },
    close: async () => undefined,
  };
  const policy = { baseMs: 1, capMs: 1, maxAttempts: 1 };
  return { bank: createBankState(createRestClient(transport), { policy }), asked };
}

const ACCOUNTS = '/cosmos/auth/v1beta1/accounts';
const MODULES = '/cosmos/auth/v1beta1/module_accounts';
const A = 'init1kw2unuhgfa6mz6r0ehrzlr9k9ftjk7pql8u5fm';
const B = 'init17xpfvakm2amg962yls6f84z3kell8c5l70rnql';
const C = 'init1nyky4mrxx69l4zpqtdldkk9rlf9grlnn77djlh';
const D = 'init1sqnzndr2mc3us4m59tksjge7gnnml6usydaskw';
const OPCHILD = 'init1gz9n8jnu9fgqw7vem9ud67gqjk5q4m2w0aejne';

const base = (address: string, n: number) => ({
  address,
  pub_key: null,
  account_number: String(n),
  sequence: '0',
});
const moduleAccounts = {
  accounts: [
    {
      '@type': '/cosmos.auth.v1beta1.ModuleAccount',
      base_account: base(OPCHILD, 7),
      name: 'opchild',
      permissions: ['minter', 'burner'],
    },
    {
      '@type': '/cosmos.auth.v1beta1.ModuleAccount',
      base_account: base(B, 1),
      name: 'fee_collector',
      permissions: [],
    },
  ],
};

describe('bank state reads', () => {
  it('reads each account type where it keeps its address (top level, base_account, base_vesting_account.base_account)', () => {
    expect(accountAddress({ '@type': '/cosmos.auth.v1beta1.BaseAccount', ...base(A, 1) })).toBe(A);
    expect(
      accountAddress({
        '@type': '/minievm.evm.v1.ContractAccount',
        base_account: base(A, 2),
        code_hash: '0xab',
      }),
    ).toBe(A);
    expect(accountAddress({ '@type': '/initia.move.v1.ObjectAccount', base_account: base(A, 3) })).toBe(A);
    expect(
      accountAddress({
        '@type': '/cosmos.vesting.v1beta1.ContinuousVestingAccount',
        base_vesting_account: {
          base_account: base(A, 4),
          original_vesting: [{ denom: 'uinit', amount: '100' }],
          delegated_free: [],
          delegated_vesting: [],
          end_time: '1767225600',
        },
        start_time: '1735689600',
      }),
    ).toBe(A);
    expect(accountAddress({ '@type': '/cosmos.auth.v1beta1.BaseAccount', address: '' })).toBeUndefined();
  });

  it('lists every account by next_key, nested addresses included, and the module accounts', async () => {
    const { bank, asked } = stubNode({
      [ACCOUNTS]: {
        'pagination.count_total=true&pagination.limit=500': {
          accounts: [
            { '@type': '/cosmos.auth.v1beta1.BaseAccount', ...base(A, 1) },
            { '@type': '/minievm.evm.v1.ContractAccount', base_account: base(C, 2), code_hash: '0x01' },
          ],
          pagination: { next_key: 'AAAAAAAAAAM=', total: '4' },
        },
        'pagination.key=AAAAAAAAAAM%3D&pagination.limit=500': {
          accounts: [
            {
              '@type': '/cosmos.vesting.v1beta1.DelayedVestingAccount',
              base_vesting_account: { base_account: base(D, 3), original_vesting: [] },
            },
            {
              '@type': '/cosmos.auth.v1beta1.ModuleAccount',
              base_account: base(OPCHILD, 7),
              name: 'opchild',
            },
          ],
          pagination: { next_key: null, total: '0' },
        },
      },
      [MODULES]: { '': moduleAccounts },
    });
    expect(await bank.accountsAt(12)).toEqual([A, C, D, OPCHILD, B]);
    const heights = asked
      .filter((r) => r.path.startsWith(ACCOUNTS))
      .map((r) => r.headers?.['x-cosmos-block-height']);
    expect(heights).toEqual(['12', '12']);
  });

  it('asks for the total on the first page only, and pages on by offset when the node drops next_key early but its total says there is more', async () => {
    const { bank, asked } = stubNode({
      [ACCOUNTS]: {
        'pagination.count_total=true&pagination.limit=500': {
          accounts: [base(A, 1), base(C, 2)],
          pagination: { next_key: null, total: '3' },
        },
        'pagination.limit=500&pagination.offset=2': {
          accounts: [base(D, 3)],
          pagination: { next_key: null, total: '3' },
        },
      },
      [MODULES]: { '': { accounts: [] } },
    });
    expect(await bank.accountsAt(5)).toEqual([A, C, D]);
    expect(asked.map((r) => r.path).filter((p) => p.startsWith(ACCOUNTS))).toEqual([
      `${ACCOUNTS}?pagination.limit=500&pagination.offset=0&pagination.count_total=true`,
      `${ACCOUNTS}?pagination.limit=500&pagination.offset=2`,
    ]);
  });

  it('stops with an error naming the path when the node hands out the same next_key again', async () => {
    const balances = `/cosmos/bank/v1beta1/balances/${A}`;
    const { bank, asked } = stubNode({
      [balances]: {
        'pagination.count_total=true&pagination.limit=1000': {
          balances: [{ denom: 'uinit', amount: '1' }],
          pagination: { next_key: 'dWluaXQ=', total: '3' },
        },
        // Key pages are not counted: total "0", as cosmos-sdk answers them.
        'pagination.key=dWluaXQ%3D&pagination.limit=1000': {
          balances: [{ denom: 'uusdc', amount: '2' }],
          pagination: { next_key: 'dWluaXQ=', total: '0' },
        },
      },
    });
    await expect(bank.balancesAt(A, 9)).rejects.toThrow(
      `rest ${balances} at 9: next_key dWluaXQ= handed out twice`,
    );
    expect(asked).toHaveLength(2);
  });

  it('stops with an error naming the path when the node lists more items than its total', async () => {
    const { bank } = stubNode({
      [ACCOUNTS]: {
        'pagination.count_total=true&pagination.limit=500': {
          accounts: [base(A, 1), base(C, 2)],
          pagination: { next_key: 'AAAAAAAAAAM=', total: '3' },
        },
        'pagination.key=AAAAAAAAAAM%3D&pagination.limit=500': {
          accounts: [base(D, 3), base(B, 4)],
          pagination: { next_key: null, total: '0' },
        },
      },
      [MODULES]: { '': { accounts: [] } },
    });
    await expect(bank.accountsAt(5)).rejects.toThrow(
      `rest ${ACCOUNTS} at 5: 4 items listed, more than the total 3`,
    );
  });

  it('reads every page of an account balances by next_key', async () => {
    const { bank } = stubNode({
      [`/cosmos/bank/v1beta1/balances/${A}`]: {
        'pagination.count_total=true&pagination.limit=1000': {
          balances: [
            {
              denom: 'ibc/37A3FB4FED4CA04ED6D9E5DA36C6D27248645F0E22F585576A1488B8A89C5A50',
              amount: '200000',
            },
            {
              denom: 'l2/8f73cfaf153520f511b4fc0bd71d60d64b4e19eff04a350e642718a3c1ab3b06',
              amount: '1000000',
            },
          ],
          pagination: { next_key: 'dWluaXQ=', total: '3' },
        },
        'pagination.key=dWluaXQ%3D&pagination.limit=1000': {
          balances: [{ denom: 'uinit', amount: '6103' }],
          pagination: { next_key: null, total: '0' },
        },
      },
    });
    expect(await bank.balancesAt(A, 9)).toEqual([
      { denom: 'ibc/37A3FB4FED4CA04ED6D9E5DA36C6D27248645F0E22F585576A1488B8A89C5A50', amount: 200000n },
      { denom: 'l2/8f73cfaf153520f511b4fc0bd71d60d64b4e19eff04a350e642718a3c1ab3b06', amount: 1000000n },
      { denom: 'uinit', amount: 6103n },
    ]);
  });

  it('lists the module accounts with their permissions', async () => {
    const { bank } = stubNode({ [MODULES]: { '': moduleAccounts } });
    expect(await bank.moduleAccounts()).toEqual([
      { address: OPCHILD, name: 'opchild', permissions: ['minter', 'burner'] },
      { address: B, name: 'fee_collector', permissions: [] },
    ]);
  });

  it("reads a fungible asset's Metadata resource (recorded: uinit on Initia, 0 decimals), none when the node has none", async () => {
    const UINIT = '0x8e4733bdabcf7d4afc3d14f0dd46c9bf52fb0fce9e4b996c939e195b8bc891d9';
    const recorded = JSON.parse(
      readFileSync(path.join(REAL_SAMPLES, 'protocols/op-init/finalize-token-withdrawal.json'), 'utf8'),
    ) as {
      mockApiResponsesForFinalizeTokenWithdrawal: {
        GET: Record<string, { resources: Array<{ struct_tag: string }> }>;
      };
    };
    const resources =
      recorded.mockApiResponsesForFinalizeTokenWithdrawal.GET[`/initia/move/v1/accounts/${UINIT}/resources`]!;
    const resource = resources.resources.find((r) => r.struct_tag === '0x1::fungible_asset::Metadata');
    const byStructTag = `/initia/move/v1/accounts/${UINIT}/resources/by_struct_tag`;
    const { bank, asked } = stubNode({
      [byStructTag]: { 'struct_tag=0x1%3A%3Afungible_asset%3A%3AMetadata': { resource } },
    });
    expect(await bank.fungibleAssetMetadata(UINIT)).toEqual({ symbol: 'uinit', decimals: 0 });
    expect(asked[0]!.headers?.['x-cosmos-block-height']).toBeUndefined();
    expect(await bank.fungibleAssetMetadata('0x' + 'ab'.repeat(32))).toBeUndefined();
  });
});
