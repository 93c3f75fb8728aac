import type { FastifyInstance } from 'fastify';
import { parsePagination, planKeyset } from '../pagination.js';
import { parseHeight, parseIsSigner } from '../params.js';
import {
  AccountParams,
  HashParams,
  HeightParams,
  PaginationQuery,
  SignerQuery,
  errorResponses,
  ref,
} from '../schemas.js';
import { jsonRoute, type RouteDeps } from './define.js';
import { renderAccountTxPage, renderTxByHash, renderTxPage } from './txs.js';

/** EVM tx routes (docs/api.md §4.4); registered on EVM rollups only (see unavailable.ts otherwise). */
export function registerEvmTxRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { evmTxs, dicts } = deps.readers;
  const prefix = deps.options.accountPrefix;
  const listResponse = { 200: ref('tx.EvmTxsResponse'), ...errorResponses };

  jsonRoute(app, deps, {
    url: '/indexer/tx/v1/evm-txs',
    ttlSeconds: 1,
    schema: {
      tags: ['EVM Tx'],
      summary: 'EVM transactions',
      querystring: PaginationQuery,
      response: listResponse,
    },
    async handler({ query }) {
      const page = parsePagination(query, 'sequence');
      return renderTxPage(
        page,
        await evmTxs.list(planKeyset(page, 'sequence'), { countTotal: page.countTotal }),
      );
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/tx/v1/evm-txs/by_account/:account',
    ttlSeconds: 1,
    schema: {
      tags: ['EVM Tx'],
      summary: 'EVM transactions involving an account',
      params: AccountParams,
      querystring: SignerQuery,
      response: listResponse,
    },
    async handler({ query, params }) {
      return renderAccountTxPage(dicts, prefix, params.account, query, (page, accountId) =>
        evmTxs.byAccount(planKeyset(page, 'sequence'), {
          accountId,
          signerOnly: parseIsSigner(query.is_signer),
          countTotal: page.countTotal,
        }),
      );
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/tx/v1/evm-txs/by_height/:height',
    ttlSeconds: 1,
    schema: {
      tags: ['EVM Tx'],
      summary: 'EVM transactions of one block',
      params: HeightParams,
      querystring: PaginationQuery,
      response: listResponse,
    },
    async handler({ query, params }) {
      const height = parseHeight(params.height);
      const page = parsePagination(query, 'sequence');
      const result = await evmTxs.byHeight(planKeyset(page, 'sequence'), {
        height,
        countTotal: page.countTotal,
      });
      return renderTxPage(page, result);
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/tx/v1/evm-txs/:tx_hash',
    ttlSeconds: 10,
    schema: {
      tags: ['EVM Tx'],
      summary: 'One EVM transaction by hash',
      params: HashParams,
      response: { 200: ref('tx.EvmTxResponse'), ...errorResponses },
    },
    async handler({ params }) {
      return renderTxByHash(params.tx_hash, (hash) => evmTxs.byHash(hash), 'tx not found');
    },
  });
}
