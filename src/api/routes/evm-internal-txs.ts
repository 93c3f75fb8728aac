import type { TObject, TProperties } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { parsePagination, planKeyset, type PageRequest } from '../pagination.js';
import { EMPTY_PAGE, type JsonPage } from '../../store/readers/context.js';
import { NotFoundError } from '../../shared/errors.js';
import { parseAccount, parseHeight, parseTxHash } from '../params.js';
import { AccountParams, HashParams, HeightParams, PaginationQuery, errorResponses, ref } from '../schemas.js';
import { jsonRoute, type JsonRoute, type RouteDeps } from './define.js';
import { EVM_UNAVAILABLE, routeUnavailable } from './unavailable.js';
import { renderTxPage } from './txs.js';

/**
 * EVM internal tx routes (docs/api.md §4.5), registered on EVM rollups. Without INTERNAL_TX they answer
 * the code-12 error, yet stay in the OpenAPI document as the reference's do (docs/api.md §4.8).
 */
export function registerEvmInternalTxRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { evmInternalTxs: reader, dicts } = deps.readers;
  // Answered before validation: whatever the parameters, code 12 as on Move and Wasm.
  const unavailable = () => Promise.reject(routeUnavailable(404, EVM_UNAVAILABLE));
  const route = <P extends TObject<TProperties>>(r: JsonRoute<P, typeof PaginationQuery>) =>
    jsonRoute(
      app,
      deps,
      deps.options.internalTx
        ? r
        : { url: r.url, schema: r.schema, onRequest: unavailable, handler: unavailable },
    );
  const schema = (summary: string) => ({
    tags: ['EVM Internal Tx'],
    summary,
    querystring: PaginationQuery,
    response: { 200: ref('tx.EvmInternalTxsResponse'), ...errorResponses },
  });

  route({
    url: '/indexer/tx/v1/evm-internal-txs',
    ttlSeconds: 1,
    schema: schema('EVM internal transactions'),
    async handler({ query }) {
      const page = parsePagination(query, 'sequence');
      return renderInternalPage(
        page,
        await reader.list(planKeyset(page, 'sequence'), { countTotal: page.countTotal }),
      );
    },
  });

  route({
    url: '/indexer/tx/v1/evm-internal-txs/by_account/:account',
    ttlSeconds: 1,
    schema: { ...schema('EVM internal transactions from or to an account'), params: AccountParams },
    async handler({ query, params }) {
      const account = parseAccount(params.account, deps.options.accountPrefix);
      const page = parsePagination(query, 'sequence');
      const accountId = await dicts.accountId(account);
      if (accountId === undefined) return renderInternalPage(page, EMPTY_PAGE);
      const plan = planKeyset(page, 'sequence');
      return renderInternalPage(
        page,
        await reader.byAccount(plan, { accountId, countTotal: page.countTotal }),
      );
    },
  });

  route({
    url: '/indexer/tx/v1/evm-internal-txs/by_height/:height',
    ttlSeconds: 1,
    schema: { ...schema('EVM internal transactions of one block'), params: HeightParams },
    async handler({ query, params }) {
      const height = parseHeight(params.height);
      const page = parsePagination(query, 'sequence');
      const plan = planKeyset(page, 'sequence');
      return renderInternalPage(page, await reader.byHeight(plan, { height, countTotal: page.countTotal }));
    },
  });

  route({
    url: '/indexer/tx/v1/evm-internal-txs/:tx_hash',
    ttlSeconds: 10,
    schema: { ...schema('Internal transactions of one EVM transaction'), params: HashParams },
    async handler({ query, params }) {
      // Pagination is checked before the hash (docs/api.md §4.10).
      const page = parsePagination(query, 'sequence');
      const hash = parseTxHash(params.tx_hash);
      if (hash.length === 0 || !(await reader.isTraced(hash))) {
        throw new NotFoundError('tx_not_found', 'transaction not found');
      }
      const plan = planKeyset(page, 'sequence');
      return renderInternalPage(page, await reader.byHash(plan, { hash, countTotal: page.countTotal }));
    },
  });
}

const renderInternalPage = (page: PageRequest, result: JsonPage) =>
  renderTxPage(page, result, 'internal_txs');
