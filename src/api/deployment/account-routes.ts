import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AccountTxsQuery, PaginationQuery } from '../schemas.js';
import { parseAccountAddress, selectChains } from './account-chains.js';
import { accountNftsPage, accountSummaryBody } from './account-nfts.js';
import { accountTxsPage } from './account-txs.js';
import type { ChainDirectory } from './directory.js';

const AddressParams = Type.Object({
  address: Type.String({
    description: 'init1… bech32, 0x + 40 hex, or 0x + 64 hex with 12 leading zero bytes (the same 20 bytes)',
  }),
});
const chainIds = {
  chain_ids: Type.Optional(Type.String({ description: 'comma list of chain ids (default: every chain)' })),
};

/** The cross-chain account routes (docs/chains.md §4): txs, NFTs and a summary across chains. */
export function registerAccountRoutes(
  app: FastifyInstance,
  directory: ChainDirectory,
  settings: { accountPrefix: string },
): void {
  for (const schema of ACCOUNT_SCHEMAS) app.addSchema(schema);
  const prefix = settings.accountPrefix;
  const json = (reply: { header(k: string, v: string): unknown }, body: string) => {
    reply.header('content-type', 'application/json');
    return body;
  };
  const errors = { 400: { $ref: 'account.Error#' } };
  app.get(
    '/indexer/account/v1/:address/txs',
    {
      schema: {
        tags: ['Account'],
        summary: "An account's txs on every chain, newest first, with a snapshot cursor",
        params: AddressParams,
        querystring: Type.Object({ ...AccountTxsQuery.properties, ...chainIds }),
        response: { 200: { $ref: 'account.TxsResponse#' }, ...errors },
      },
    },
    async (request, reply) => {
      const { address } = request.params as { address: string };
      const query = request.query as Record<string, string | undefined> & { msgs?: string[]; chain_ids?: string };
      const account = parseAccountAddress(address, prefix);
      const chains = selectChains(directory, query.chain_ids);
      return json(reply, await accountTxsPage({ account, chains, query }));
    },
  );
  app.get(
    '/indexer/account/v1/:address/nfts',
    {
      schema: {
        tags: ['Account'],
        summary: "An account's NFTs on every chain",
        params: AddressParams,
        querystring: Type.Object({ ...PaginationQuery.properties, ...chainIds }),
        response: { 200: { $ref: 'account.NftsResponse#' }, ...errors },
      },
    },
    async (request, reply) => {
      const { address } = request.params as { address: string };
      const query = request.query as Record<string, string | undefined>;
      const account = parseAccountAddress(address, prefix);
      const chains = selectChains(directory, query.chain_ids);
      return json(reply, await accountNftsPage({ account, chains, query }, prefix));
    },
  );
  app.get(
    '/indexer/account/v1/:address/summary',
    {
      schema: {
        tags: ['Account'],
        summary: 'Per chain: tx counts, first and last activity, NFTs held, balances',
        params: AddressParams,
        querystring: Type.Object(chainIds),
        response: { 200: { $ref: 'account.SummaryResponse#' }, ...errors },
      },
    },
    async (request, reply) => {
      const { address } = request.params as { address: string };
      const query = request.query as { chain_ids?: string };
      const account = parseAccountAddress(address, prefix);
      return json(reply, await accountSummaryBody(account, selectChains(directory, query.chain_ids)));
    },
  );
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
                  items: { type: 'object', properties: { denom: { type: 'string' }, amount: { type: 'string' } } },
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
