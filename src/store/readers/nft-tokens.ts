import type { NftTokenPieces } from '../../wire/nft-token.js';
import { checkOffset, keysetSql, limitSql, takePage, type KeysetPlan } from '../pagination.js';
import {
  countWithTimeout,
  ridingTotal,
  runOffsetScan,
  EMPTY_PAGE,
  queryStoredJson,
  type JsonPage,
  type ReaderContext,
} from './context.js';
import { storedText, storedTextColumns, type StoredTextRow } from './stored-json.js';

/**
 * Live NFTs and a token's tx history (migrations/20261124_0003_nft.sql, docs/api.md §4.6.5–4.6.7).
 * Token lists are ordered (token_id, height) or (height, token_id), both the same direction, then
 * by collection address when the list spans collections, so the order is total and every keyset
 * cursor handed out resumes exactly after its row. token_id is C-collated text (byte order).
 */
export type TokenOrder = 'token_id' | 'height';

/**
 * One token as ingest rendered it (generated columns, migrations/20261125_0008_nft_token_json.sql):
 * its JSON object is `head` + the owner's bech32 text + `tail`. The owner is the one part the
 * database cannot render: its text depends on the API's account prefix.
 */
export type TokenRow = NftTokenPieces;

export interface TokenFilter {
  ownerId?: number;
  collection?: Uint8Array;
  /** Exact token id; undefined = any. */
  tokenId?: string;
}

/** A position in list order: the last row of the previous page. */
export interface TokenPosition {
  height: number;
  tokenId: string;
  /** Only in cursors of lists that span collections (the reference's cursor has no such key). */
  collection?: Buffer;
}

export interface TokenPlan {
  orderBy: TokenOrder;
  desc: boolean;
  limit: number;
  offset: number;
  after?: TokenPosition;
  /** `{"height":N}` cursor: height strictly past N, with offset paging (reference rule). */
  heightBelow?: number;
}

export interface TokenPage {
  rows: TokenRow[];
  hasMore: boolean;
  total: string;
}

/** The identity of a live token: its dictionary id and, on Move, its object address. */
export interface LiveToken {
  nftId: number;
  /** Move NFT object address (32 raw bytes); null on Wasm and EVM. */
  objectAddr: Buffer | null;
}

export interface NftTokenReader {
  list(plan: TokenPlan, filter: TokenFilter, countTotal: boolean): Promise<TokenPage>;
  /** The live token, undefined when never minted or burned (burns delete the row). */
  liveToken(collection: Uint8Array, tokenId: string): Promise<LiveToken | undefined>;
  /** Stored Cosmos tx JSON of the txs with NFT events for the token (tx_nfts), by sequence. */
  txs(plan: KeysetPlan, nftId: number, countTotal: boolean): Promise<JsonPage>;
}

/** A missing collection row renders empty names (the reference would answer 500). */
const TOKEN_COLUMNS =
  `COALESCE(c.token_json_head, ri_nft_token_json_head(n.collection_addr, '', '')) || n.json_head AS head, ` +
  `o.account AS owner, n.json_tail AS tail`;

function filterSql(filter: TokenFilter, params: unknown[]): string {
  const parts: string[] = [];
  if (filter.ownerId !== undefined) {
    params.push(filter.ownerId);
    parts.push(`n.owner_id = $${params.length}`);
  }
  if (filter.collection !== undefined) {
    params.push(Buffer.from(filter.collection));
    parts.push(`n.collection_addr = $${params.length}`);
  }
  if (filter.tokenId !== undefined) {
    params.push(filter.tokenId);
    parts.push(`n.token_id = $${params.length}`);
  }
  return parts.length > 0 ? parts.join(' AND ') : 'true';
}

/** The ORDER BY columns and the matching keyset condition, appended to params. */
function orderSql(plan: TokenPlan, spansCollections: boolean, params: unknown[]) {
  const dir = plan.desc ? 'DESC' : 'ASC';
  const cmp = plan.desc ? '<' : '>';
  const columns = plan.orderBy === 'token_id' ? ['n.token_id', 'n.height'] : ['n.height', 'n.token_id'];
  if (spansCollections) columns.push('n.collection_addr');
  let where = '';
  if (plan.after) {
    const { height, tokenId, collection } = plan.after;
    params.push(height, tokenId);
    const [h, t] = [`$${params.length - 1}::bigint`, `$${params.length}::text`];
    const values = plan.orderBy === 'token_id' ? [t, h] : [h, t];
    const used = columns.slice(0, 2);
    if (spansCollections && collection) {
      params.push(collection);
      values.push(`$${params.length}::bytea`);
      used.push('n.collection_addr');
    }
    where = ` AND (${used.join(', ')}) ${cmp} (${values.join(', ')})`;
  } else if (plan.heightBelow !== undefined) {
    params.push(plan.heightBelow);
    where = ` AND n.height ${cmp} $${params.length}::bigint`;
  }
  return { where, orderBy: columns.map((c) => `${c} ${dir}`).join(', ') };
}

export function createNftTokenReader(ctx: ReaderContext): NftTokenReader {
  return {
    async list(plan, filter, countTotal) {
      const params: unknown[] = [];
      const filterText = filterSql(filter, params);
      const countParams = [...params];
      const spansCollections = filter.collection === undefined;
      const { where, orderBy } = orderSql(plan, spansCollections, params);
      const offsetScan = plan.after === undefined && plan.offset > 0;
      if (offsetScan) checkOffset(plan.offset, ctx.maxOffset);
      const limits = limitSql(plan.limit, plan.offset, params);
      // A total ingest keeps rides along in the page's own statement (one round trip per page).
      const kept = countTotal ? keptTotalSql(filter) : undefined;
      // Page the token index first, then join the page's collections and owners.
      const sql =
        `SELECT ${TOKEN_COLUMNS}${kept ? `, ${kept} AS total` : ''} ` +
        `FROM (SELECT * FROM nft n WHERE ${filterText}${where} ORDER BY ${orderBy}${limits}) n ` +
        `LEFT JOIN nft_collection c ON c.addr = n.collection_addr LEFT JOIN account_dict o ON o.id = n.owner_id ` +
        `ORDER BY ${orderBy}`;
      const [result, counted] = await Promise.all([
        runOffsetScan(ctx, offsetScan, () => ctx.db.query<TokenRow & { total?: number }>(sql, params)),
        countTotal && !kept
          ? countWithTimeout(ctx, `SELECT count(*) AS n FROM nft n WHERE ${filterText}`, countParams)
          : '0',
      ]);
      const page = takePage(result.rows, plan.limit);
      const total = kept ? await ridingTotal(ctx, result.rows, kept, countParams) : counted;
      // The rows keep their `total` column: renderers read named fields only.
      return { rows: page.rows, hasMore: page.hasMore, total };
    },

    async liveToken(collection, tokenId) {
      const { rows } = await ctx.db.query<{ id: number; object_addr: Uint8Array | null }>(
        'SELECT nft_id AS id, object_addr FROM nft WHERE collection_addr = $1 AND token_id = $2',
        [Buffer.from(collection), tokenId],
      );
      const row = rows[0];
      if (!row) return undefined;
      return { nftId: Number(row.id), objectAddr: row.object_addr ? Buffer.from(row.object_addr) : null };
    },

    async txs(plan, nftId, countTotal) {
      const params: unknown[] = [nftId];
      const { where, tail, offsetScan } = keysetSql(plan, 'e.sequence', params, { maxOffset: ctx.maxOffset });
      const dir = plan.desc ? 'DESC' : 'ASC';
      const sql =
        `SELECT t.sequence, ${storedTextColumns('tx', 't')} FROM (SELECT e.sequence FROM tx_nfts e WHERE e.nft_id = $1${where}${tail}) q ` +
        `JOIN tx t ON t.sequence = q.sequence ORDER BY t.sequence ${dir}`;
      const [result, total] = await Promise.all([
        runOffsetScan(ctx, offsetScan, () =>
          queryStoredJson<StoredTextRow & { sequence: number }>(ctx, sql, params),
        ),
        countTotal
          ? countWithTimeout(ctx, 'SELECT count(*) AS n FROM tx_nfts WHERE nft_id = $1', [nftId])
          : '0',
      ]);
      if (result.rows.length === 0) return { ...EMPTY_PAGE, total };
      const page = takePage(result.rows, plan.limit);
      return {
        items: page.rows.map(storedText),
        lastValue: page.rows.at(-1)?.sequence,
        hasMore: page.hasMore,
        total,
      };
    },
  };
}

/**
 * Unfiltered owner and collection totals come from the counts ingest keeps with the tokens
 * (nft_holding, nft_collection.nft_count), as a scalar over the filter's parameters ($1 owner,
 * then $2 collection; or $1 collection); a token_id filter counts its rows instead (undefined).
 */
function keptTotalSql(filter: TokenFilter): string | undefined {
  if (filter.tokenId !== undefined) return undefined;
  if (filter.ownerId !== undefined) {
    return filter.collection === undefined
      ? '(SELECT COALESCE(sum(nft_count), 0) FROM nft_holding WHERE owner_id = $1)'
      : 'COALESCE((SELECT nft_count FROM nft_holding WHERE owner_id = $1 AND collection_addr = $2), 0)';
  }
  if (filter.collection !== undefined) {
    // A token whose collection row is missing still counts (the reference would answer 500).
    return (
      'COALESCE((SELECT nft_count FROM nft_collection WHERE addr = $1), ' +
      '(SELECT count(*) FROM nft WHERE collection_addr = $1))'
    );
  }
  return undefined;
}
