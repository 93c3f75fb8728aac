import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../shared/errors.js';
import type { Static } from '@sinclair/typebox';
import {
  buildPagination,
  parsePagination,
  planKeyset,
  type PageRequest,
  type PaginationQuery,
} from '../pagination.js';
import { EMPTY_PAGE, type JsonPage } from '../../store/readers/context.js';
import type { DictReader } from '../../store/readers/dicts.js';
import { parseAccount, parseHeight, parseIsSigner, parseMsgTypes, parseTxHash } from '../params.js';
import { renderList, type JsonList } from '../render.js';
import {
  AccountParams,
  AccountTxsQuery,
  HashParams,
  HeightParams,
  MsgsQuery,
  errorResponses,
  ref,
} from '../schemas.js';
import { jsonRoute, type RouteDeps } from './define.js';

/** Resolves `msgs` to ids: undefined = no filter, [] = nothing can match (docs/api.md §0.2). */
export async function msgTypeFilter(
  dicts: DictReader,
  query: Static<typeof MsgsQuery>,
): Promise<number[] | undefined> {
  const names = parseMsgTypes(query.msgs);
  return names === undefined ? undefined : dicts.msgTypeIds(names);
}

/** A page of sequence-keyed rows under `listKey` (`txs`, or `internal_txs`). */
export function renderTxPage(page: PageRequest, result: JsonPage, listKey = 'txs'): JsonList {
  const pagination = buildPagination(page, {
    column: 'sequence',
    lastValue: result.lastValue,
    hasMore: result.hasMore,
    total: result.total,
  });
  return renderList(listKey, result.items, pagination);
}

/**
 * A tx page scoped to one account. An unknown account is an empty page, not an error;
 * `list` runs only for a known one.
 */
export async function renderAccountTxPage(
  dicts: DictReader,
  prefix: string,
  rawAccount: string,
  query: PaginationQuery,
  list: (page: PageRequest, accountId: number) => Promise<JsonPage>,
): Promise<JsonList> {
  const account = parseAccount(rawAccount, prefix);
  const page = parsePagination(query, 'sequence');
  const accountId = await dicts.accountId(account);
  if (accountId === undefined) return renderTxPage(page, EMPTY_PAGE);
  return renderTxPage(page, await list(page, accountId));
}

/** `{"tx":…}` for one stored tx by hash; an empty or unknown hash is a 404 with `notFound`. */
export async function renderTxByHash(
  rawHash: string,
  find: (hash: Uint8Array) => Promise<string | undefined>,
  notFound: string,
): Promise<string> {
  const hash = parseTxHash(rawHash);
  const data = hash.length === 0 ? undefined : await find(hash);
  if (data === undefined) throw new NotFoundError('tx_not_found', notFound);
  return `{"tx":${data}}`;
}

/** Cosmos tx routes (docs/api.md §4.3), with the msgs and pagination rules of docs/api.md §0.2–§0.3. */
export function registerTxRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { txs, dicts } = deps.readers;
  const prefix = deps.options.accountPrefix;
  const listResponse = { 200: ref('tx.TxsResponse'), ...errorResponses };

  jsonRoute(app, deps, {
    url: '/indexer/tx/v1/txs',
    ttlSeconds: 1,
    schema: { tags: ['Tx'], summary: 'Transactions', querystring: MsgsQuery, response: listResponse },
    async handler({ query }) {
      const page = parsePagination(query, 'sequence');
      const msgTypeIds = await msgTypeFilter(dicts, query);
      const result = await txs.list(planKeyset(page, 'sequence'), {
        msgTypeIds,
        countTotal: page.countTotal,
      });
      return renderTxPage(page, result);
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/tx/v1/txs/by_account/:account',
    ttlSeconds: 1,
    schema: {
      tags: ['Tx'],
      summary: 'Transactions involving an account',
      params: AccountParams,
      querystring: AccountTxsQuery,
      response: listResponse,
    },
    async handler({ query, params }) {
      return renderAccountTxPage(dicts, prefix, params.account, query, async (page, accountId) => {
        const msgTypeIds = await msgTypeFilter(dicts, query);
        return txs.byAccount(planKeyset(page, 'sequence'), {
          accountId,
          signerOnly: parseIsSigner(query.is_signer),
          msgTypeIds,
          countTotal: page.countTotal,
        });
      });
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/tx/v1/txs/by_height/:height',
    ttlSeconds: 1,
    schema: {
      tags: ['Tx'],
      summary: 'Transactions of one block',
      params: HeightParams,
      querystring: MsgsQuery,
      response: listResponse,
    },
    async handler({ query, params }) {
      const height = parseHeight(params.height);
      const page = parsePagination(query, 'sequence');
      const msgTypeIds = await msgTypeFilter(dicts, query);
      const result = await txs.byHeight(planKeyset(page, 'sequence'), {
        height,
        msgTypeIds,
        countTotal: page.countTotal,
      });
      return renderTxPage(page, result);
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/tx/v1/txs/:tx_hash',
    ttlSeconds: 10,
    schema: {
      tags: ['Tx'],
      summary: 'One transaction by hash',
      params: HashParams,
      response: { 200: ref('tx.TxResponse'), ...errorResponses },
    },
    async handler({ params }) {
      return renderTxByHash(params.tx_hash, (hash) => txs.byHash(hash), '[NOT_FOUND] transaction not found');
    },
  });
}
