import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountBytesFromString } from '../../shared/address.js';
import { nftNameKey } from '../../shared/nft-name.js';
import { NotFoundError } from '../../shared/errors.js';
import { parsePagination, planKeyset, type PageRequest } from '../pagination.js';
import { EMPTY_PAGE } from '../../store/readers/context.js';
import type { CollectionPage, CollectionPlan } from '../../store/readers/nft-collections.js';
import type { TokenFilter, TokenPlan } from '../../store/readers/nft-tokens.js';
import type { NftAnswerKind } from '../../store/readers/nft-pages.js';
import { renderCollection } from '../../wire/nft-collection.js';
import { renderToken } from '../../wire/nft-token.js';
import { collectionCursor, nftPagination, tokenCursor } from '../nft-render.js';
import { accountTextMemo } from '../account-text.js';
import {
  decodePathSegment,
  parseAccount,
  parseCollectionAddr,
  parseNftOrderBy,
  type NftOrderBy,
} from '../params.js';
import { joinJson, renderList, type JsonList } from '../render.js';
import {
  AccountParams,
  CollectionAddrParams,
  NameParams,
  NftTxParams,
  PaginationQuery,
  TokensByAccountQuery,
  TokensByCollectionQuery,
  errorResponses,
  ref,
} from '../schemas.js';
import { jsonRoute, type RouteDeps } from './define.js';
import { renderTxPage } from './txs.js';

const ADDR_RE = /^0x(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const safeInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * The account_dict form of a Move object address: ingest stores every account it greps from the
 * events after docs/api.md §2.6 normalisation (leading zero bytes dropped to 20 bytes where they fit), so
 * the raw 32 bytes are normalised the same way before the look-up.
 */
function objectAccountBytes(objectAddr: Uint8Array): Uint8Array {
  return accountBytesFromString('0x' + Buffer.from(objectAddr).toString('hex'), '');
}

/**
 * `{"height":N,"object_addr":…}` (handed out by this server) resumes after that row;
 * `{"height":N}` keeps the reference's `height < N`; any other key is offset paging.
 */
export function planCollections(page: PageRequest): CollectionPlan {
  const base = { limit: page.limit, offset: page.offset, desc: page.reverse };
  const height = page.cursor?.height;
  if (page.cursorKind !== 'height' || !safeInt(height)) return base;
  const addr = page.cursor?.object_addr;
  if (typeof addr === 'string' && ADDR_RE.test(addr)) {
    return { ...base, offset: 0, after: { height, addr: Buffer.from(addr.slice(2), 'hex') } };
  }
  return { ...base, offset: 0, heightBelow: height };
}

/** Composite keys resume after their row; `{"height":N}` filters height with offset paging. */
export function planTokens(page: PageRequest, orderBy: NftOrderBy): TokenPlan {
  const base = { orderBy, limit: page.limit, offset: page.offset, desc: page.reverse };
  const { height, token_id: tokenId, collection_addr: collection } = page.cursor ?? {};
  if (page.cursorKind === 'composite' && safeInt(height) && typeof tokenId === 'string') {
    const after = { height, tokenId };
    return typeof collection === 'string' && ADDR_RE.test(collection)
      ? { ...base, offset: 0, after: { ...after, collection: Buffer.from(collection.slice(2), 'hex') } }
      : { ...base, offset: 0, after };
  }
  if (page.cursorKind === 'height' && safeInt(height)) return { ...base, heightBelow: height };
  return base;
}

/** NFT routes (docs/api.md §4.6); only a token's tx history differs by VM (docs/api.md §0.10). */
export function registerNftRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const ctx = nftRouteContext(deps);
  registerCollectionRoutes(app, deps, ctx);
  registerTokenRoutes(app, deps, ctx);
  registerNftTxRoute(app, deps, ctx);
}

type NftRouteContext = ReturnType<typeof nftRouteContext>;

/** What the NFT routes share: the readers, the address form, and the two list renderers. */
function nftRouteContext(deps: RouteDeps) {
  const { nftTokens } = deps.readers;
  const onMove = deps.options.vmType === 'move';
  const prefix = deps.options.accountPrefix;
  const accountText = accountTextMemo(prefix);
  const maxOffset = deps.options.limits.maxOffset;
  const collectionsResponse = { 200: ref('nft.CollectionsResponse'), ...errorResponses };
  const tokensResponse = { 200: ref('nft.NftsResponse'), ...errorResponses };

  const renderCollections = (page: PageRequest, result: CollectionPage, offsetOnly = false) => {
    const last = result.rows.at(-1);
    const pagination = nftPagination(
      page,
      { hasMore: result.hasMore, total: result.total, lastCursor: last && collectionCursor(last) },
      { maxOffset, offsetOnly },
    );
    return renderList(
      'collections',
      result.rows.map((r) => renderCollection(r, accountText)),
      pagination,
    );
  };

  const renderTokens = async (
    query: Static<typeof TokensByCollectionQuery>,
    page: PageRequest,
    filter: TokenFilter,
  ) => {
    const orderBy = parseNftOrderBy(query.order_by);
    const result = await nftTokens.list(planTokens(page, orderBy), filter, page.countTotal);
    const last = result.rows.at(-1);
    const spans = filter.collection === undefined;
    const pagination = nftPagination(
      page,
      { hasMore: result.hasMore, total: result.total, lastCursor: last && tokenCursor(last, spans) },
      { maxOffset },
    );
    return renderList(
      'tokens',
      result.rows.map((r) => renderToken(r, accountText)),
      pagination,
    );
  };
  const emptyTokens = (page: PageRequest) =>
    renderList(
      'tokens',
      [],
      nftPagination(page, { hasMore: false, total: '0', lastCursor: undefined }, { maxOffset }),
    );

  /**
   * The answer to this URL from the NFT page memory while the tables it reads are unchanged since
   * it was read (docs/api.md §1.9.1), else `produce`'s: `tokens` answers read only the NFT tables
   * and immutable rows; a token's tx `history` grows with every block batch too.
   */
  const held = (
    request: FastifyRequest,
    produce: () => Promise<string | JsonList>,
    kind: NftAnswerKind = 'tokens',
  ) =>
    deps.readers.nftPages.page(request.url, kind, async () => {
      const answer = await produce();
      if (typeof answer === 'string') return { body: Buffer.from(answer, 'utf8'), keep: true };
      // Memory of its own (never the body pool's), and not kept when its count timed out.
      return { body: joinJson(answer, Buffer.allocUnsafeSlow), keep: !countTimedOut(answer) };
    });

  return {
    ...deps.readers,
    held,
    prefix,
    accountText,
    onMove,
    collectionsResponse,
    tokensResponse,
    renderCollections,
    renderTokens,
    emptyTokens,
  };
}

const tags = ['NFT'];

/** A page whose `pagination.total` is "-1" (its count timed out): a later read may count it. */
const countTimedOut = (list: JsonList) => list.tail.endsWith(',"total":"-1"}}');

function registerCollectionRoutes(app: FastifyInstance, deps: RouteDeps, ctx: NftRouteContext): void {
  const { nftCollections, dicts, prefix, accountText, collectionsResponse, renderCollections, held } = ctx;
  jsonRoute(app, deps, {
    url: '/indexer/nft/v1/collections',
    ttlSeconds: 1,
    schema: {
      tags,
      summary: 'NFT collections, newest first',
      querystring: PaginationQuery,
      response: collectionsResponse,
    },
    async handler({ query, request }) {
      const page = parsePagination(query, 'offset');
      return held(request, async () =>
        renderCollections(page, await nftCollections.list(planCollections(page), page.countTotal)),
      );
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/nft/v1/collections/by_account/:account',
    ttlSeconds: 1,
    schema: {
      tags,
      summary: 'Collections in which an account owns NFTs',
      params: AccountParams,
      querystring: PaginationQuery,
      response: collectionsResponse,
    },
    async handler({ query, params, request }) {
      const account = parseAccount(params.account, prefix);
      const page = parsePagination(query, 'offset');
      return held(request, async () => {
        const ownerId = await dicts.accountId(account);
        const result =
          ownerId === undefined
            ? { rows: [], hasMore: false, total: '0' }
            : await nftCollections.byAccount(planCollections(page), ownerId, page.countTotal);
        return renderCollections(page, result);
      });
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/nft/v1/collections/by_name/:name',
    ttlSeconds: 1,
    schema: {
      tags,
      summary: 'Collections whose name or origin name contains the given name (letters and digits, any case)',
      params: NameParams,
      querystring: PaginationQuery,
      response: collectionsResponse,
    },
    async handler({ query, params, request }) {
      const page = parsePagination(query, 'offset');
      // Percent-decoded, unlike the reference, so a name Celatone sends through encodeURI finds its
      // collection (docs/api.md §0.11).
      const nameKey = nftNameKey(decodePathSegment(params.name, 'name'));
      const plan = { limit: page.limit, offset: page.offset, desc: page.reverse };
      return held(request, async () =>
        renderCollections(page, await nftCollections.byName(plan, nameKey), true),
      );
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/nft/v1/collections/:collection_addr',
    ttlSeconds: 10,
    schema: {
      tags,
      summary: 'One NFT collection by address',
      params: CollectionAddrParams,
      response: { 200: ref('nft.CollectionResponse'), ...errorResponses },
    },
    async handler({ params, request }) {
      const addr = parseCollectionAddr(params.collection_addr, prefix);
      return held(request, async () => {
        const row = await nftCollections.byAddr(addr);
        if (!row) throw new NotFoundError('collection_not_found', 'nft collection not found');
        return `{"collection":${renderCollection(row, accountText)}}`;
      });
    },
  });
}

function registerTokenRoutes(app: FastifyInstance, deps: RouteDeps, ctx: NftRouteContext): void {
  const { dicts, prefix, tokensResponse, renderTokens, emptyTokens, held } = ctx;
  jsonRoute(app, deps, {
    url: '/indexer/nft/v1/tokens/by_account/:account',
    ttlSeconds: 1,
    schema: {
      tags,
      summary: 'NFTs an account owns',
      params: AccountParams,
      querystring: TokensByAccountQuery,
      response: tokensResponse,
    },
    async handler({ query, params, request }) {
      const account = parseAccount(params.account, prefix);
      const collection = query.collection_addr
        ? parseCollectionAddr(query.collection_addr, prefix)
        : undefined;
      const tokenId = query.token_id ? query.token_id : undefined;
      const page = parsePagination(query, 'offset');
      parseNftOrderBy(query.order_by);
      return held(request, async () => {
        const ownerId = await dicts.accountId(account);
        if (ownerId === undefined) return emptyTokens(page);
        return renderTokens(query, page, {
          ownerId,
          ...(collection ? { collection } : {}),
          ...(tokenId !== undefined ? { tokenId } : {}),
        });
      });
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/nft/v1/tokens/by_collection/:collection_addr',
    ttlSeconds: 1,
    schema: {
      tags,
      summary: 'NFTs of one collection',
      params: CollectionAddrParams,
      querystring: TokensByCollectionQuery,
      response: tokensResponse,
    },
    async handler({ query, params, request }) {
      const collection = parseCollectionAddr(params.collection_addr, prefix);
      const tokenId = query.token_id ? query.token_id : undefined;
      const page = parsePagination(query, 'offset');
      return held(request, async () =>
        renderTokens(query, page, { collection, ...(tokenId !== undefined ? { tokenId } : {}) }),
      );
    },
  });
}

function registerNftTxRoute(app: FastifyInstance, deps: RouteDeps, ctx: NftRouteContext): void {
  const { prefix, held } = ctx;
  jsonRoute(app, deps, {
    url: '/indexer/nft/v1/txs/:collection_addr/:token_id',
    ttlSeconds: 1,
    schema: {
      tags,
      summary:
        'Transactions of one NFT (Move: every tx naming its object address; Wasm/EVM: txs with its NFT events); empty when it is burned or unknown',
      params: NftTxParams,
      querystring: PaginationQuery,
      response: { 200: ref('tx.TxsResponse'), ...errorResponses },
    },
    async handler({ query, params, request }) {
      const collection = parseCollectionAddr(params.collection_addr, prefix);
      const page = parsePagination(query, 'sequence');
      return held(request, () => nftTxPage(ctx, page, collection, params.token_id), 'history');
    },
  });
}

/** A token's tx page: its tx_nfts edges, or on Move its object's account history. */
async function nftTxPage(
  ctx: NftRouteContext,
  page: PageRequest,
  collection: Uint8Array,
  rawTokenId: string,
): Promise<JsonList> {
  const { nftTokens, dicts, txs, onMove } = ctx;
  // The raw path segment, not percent-decoded (docs/api.md §1.2).
  const token = await nftTokens.liveToken(collection, rawTokenId);
  if (token === undefined) return renderTxPage(page, EMPTY_PAGE);
  const plan = planKeyset(page, 'sequence');
  if (!onMove) return renderTxPage(page, await nftTokens.txs(plan, token.nftId, page.countTotal));
  // docs/api.md §0.10: on Move the history is the object's account history, so marketplace
  // listings and offers that name the object without moving it belong to it too.
  const objectId = token.objectAddr && (await dicts.accountId(objectAccountBytes(token.objectAddr)));
  if (!objectId) return renderTxPage(page, EMPTY_PAGE);
  const options = {
    accountId: objectId,
    signerOnly: false,
    msgTypeIds: undefined,
    countTotal: page.countTotal,
  };
  return renderTxPage(page, await txs.byAccount(plan, options));
}
