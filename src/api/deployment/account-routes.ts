import { Type, type TProperties } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AccountTxsQuery, PaginationQuery } from '../schemas.js';
import type { PaginationQuery as PageQuery } from '../pagination.js';
import { parseAccountAddress, selectChains } from './account-chains.js';
import { accountNftsPage } from './account-nfts.js';
import { accountSummaryBody } from './account-summary.js';
import { accountTxsPage } from './account-txs.js';
import type { ChainDirectory, DeployedChain } from './directory.js';

const AddressParams = Type.Object({
  address: Type.String({
    description: 'init1… bech32, 0x + 40 hex, or 0x + 64 hex with 12 leading zero bytes (the same 20 bytes)',
  }),
});
const chainIds = {
  chain_ids: Type.Optional(Type.String({ description: 'comma list of chain ids (default: every chain)' })),
};

type AccountQuery = Record<string, string | undefined> & { msgs?: string[]; chain_ids?: string };
type AccountAnswer = (account: Uint8Array, chains: DeployedChain[], query: AccountQuery) => Promise<string>;

/** One account route: the address and `chain_ids` parsed (400 naming them), the body as text. */
function accountRoute(
  app: FastifyInstance,
  ctx: { directory: ChainDirectory; prefix: string },
  route: { path: string; summary: string; query: TProperties; response: string; answer: AccountAnswer },
): void {
  app.get(
    `/indexer/account/v1/:address/${route.path}`,
    {
      schema: {
        tags: ['Account'],
        summary: route.summary,
        params: AddressParams,
        querystring: Type.Object({ ...route.query, ...chainIds }),
        response: { 200: { $ref: `${route.response}#` }, 400: { $ref: 'account.Error#' } },
      },
    },
    async (request, reply) => {
      const { address } = request.params as { address: string };
      const query = request.query as AccountQuery;
      const account = parseAccountAddress(address, ctx.prefix);
      const chains = selectChains(ctx.directory, query.chain_ids);
      void reply.header('content-type', 'application/json');
      return route.answer(account, chains, query);
    },
  );
}

/** The cross-chain account routes (docs/chains.md §4): txs, NFTs and a summary across chains. */
export function registerAccountRoutes(
  app: FastifyInstance,
  directory: ChainDirectory,
  settings: { accountPrefix: string },
): void {
  for (const schema of ACCOUNT_SCHEMAS) app.addSchema(schema);
  const ctx = { directory, prefix: settings.accountPrefix };
  accountRoute(app, ctx, {
    path: 'txs',
    summary: "An account's txs on every chain, newest first, with a snapshot cursor",
    query: AccountTxsQuery.properties,
    response: 'account.TxsResponse',
    answer: (account, chains, query) => accountTxsPage({ account, chains, query }),
  });
  accountRoute(app, ctx, {
    path: 'nfts',
    summary: "An account's NFTs on every chain",
    query: PaginationQuery.properties,
    response: 'account.NftsResponse',
    answer: (account, chains, query) =>
      accountNftsPage({ account, chains, query: query as PageQuery }, ctx.prefix),
  });
  accountRoute(app, ctx, {
    path: 'summary',
    summary: 'Per chain: tx counts, first and last activity, NFTs held, balances',
    query: {},
    response: 'account.SummaryResponse',
    answer: (account, chains) => accountSummaryBody(account, chains),
  });
}

const unavailable = {
  type: 'array',
  items: { type: 'string' },
  description: 'chains that could not answer; the walk goes on without them',
};
const pagination = {
  type: 'object',
  properties: {
    next_key: { type: 'string', nullable: true, description: 'opaque snapshot cursor (base64)' },
    total: { type: 'string', description: "sum of each chain's kept counts" },
  },
};
const list = (item: string, key: string) => ({
  type: 'object',
  required: ['items', 'pagination', 'unavailable'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chain_id', key],
        properties: { chain_id: { type: 'string' }, [key]: { $ref: item } },
      },
    },
    pagination,
    unavailable,
  },
});

export const ACCOUNT_SCHEMAS = [
  {
    $id: 'account.Error',
    type: 'object',
    properties: { code: { type: 'integer' }, message: { type: 'string' }, details: { type: 'array' } },
  },
  {
    $id: 'account.Tx',
    type: 'object',
    additionalProperties: true,
    description: "the chain's own /indexer/tx/v1/txs/{hash} tx object",
  },
  {
    $id: 'account.Token',
    type: 'object',
    additionalProperties: true,
    description: "a token as the chain's /indexer/nft/v1/tokens/by_account renders it",
  },
  { $id: 'account.TxsResponse', ...list('account.Tx#', 'tx') },
  { $id: 'account.NftsResponse', ...list('account.Token#', 'token') },
  {
    $id: 'account.SummaryResponse',
    type: 'object',
    required: ['chains', 'unavailable'],
    properties: {
      chains: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            chain_id: { type: 'string' },
            txs: { type: 'object', properties: { all: { type: 'string' }, signed: { type: 'string' } } },
            first_activity: { type: 'string', nullable: true, format: 'date-time' },
            last_activity: { type: 'string', nullable: true, format: 'date-time' },
            nfts_held: { type: 'string' },
            balances: {
              type: 'object',
              properties: {
                height: { type: 'integer', description: "the rich-list stage's checkpoint" },
                coins: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { denom: { type: 'string' }, amount: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
      unavailable,
    },
  },
];
