import { encodeKey, previousOffsetKey, type PageRequest, type PaginationJson } from './pagination.js';
import { DEFAULT_MAX_OFFSET } from '../store/pagination.js';
import type { CollectionRow } from '../store/readers/nft-collections.js';
import type { TokenRow } from '../store/readers/nft-tokens.js';

/** NFT objects of docs/api.md §5.6–5.7 in their field order, and the keys of the NFT lists. */

/** Go's RFC3339Nano of a microsecond time: trailing zeros of the fraction dropped, 'Z'. */
export function rfc3339Nano(ts: string): string {
  const dot = ts.indexOf('.');
  if (dot < 0) return `${ts}Z`;
  let end = ts.length;
  while (end > dot + 1 && ts.charCodeAt(end - 1) === 48 /* '0' */) end--;
  return `${ts.slice(0, end === dot + 1 ? dot : end)}Z`;
}

/** A JSON string of a stored hex address (hex needs no escaping): `"0x…"`, or `""`. */
const hexAddr = (hex: string | null) => (hex ? `"0x${hex}"` : '""');

export function renderCollection(row: CollectionRow, account: (bytes: Uint8Array | null) => string): string {
  return (
    `{"object_addr":${hexAddr(row.addr)},"collection":{` +
    `"creator":${JSON.stringify(account(row.creator))},"name":${JSON.stringify(row.name)},` +
    `"origin_name":${JSON.stringify(row.originName)},"nfts":{"handle":"","length":${row.nftCount}}},` +
    `"height":${row.height},"timestamp":"${rfc3339Nano(row.ts)}"}`
  );
}

export function renderToken(row: TokenRow, account: (bytes: Uint8Array | null) => string): string {
  return row.head + account(row.owner) + row.tail;
}

/** Cursor of a collection row: `{"height":N,"object_addr":"0x…"}` (keys sorted, compact). */
export const collectionCursor = (row: CollectionRow) => ({
  height: row.height,
  object_addr: `0x${row.addr}`,
});

/** Cursor of a token row, read back from its JSON; the collection only when the list spans collections. */
export function tokenCursor(row: TokenRow, spansCollections: boolean): Record<string, unknown> {
  const { collection_addr, height, nft } = JSON.parse(row.head + row.tail) as {
    collection_addr: string;
    height: number;
    nft: { token_id: string };
  };
  const token_id = nft.token_id;
  return spansCollections ? { collection_addr, height, token_id } : { height, token_id };
}

/**
 * Keys of the offset-default NFT lists (docs/api.md §2.3 builder B with docs/api.md §0.3): a JSON cursor when the
 * client sent one; otherwise base64 integer offsets like the reference, until the next offset
 * would pass the deepest offset the server scans (API_MAX_OFFSET): from there the next key is the
 * last row's cursor, a key look-up at any depth, so every key handed out is honoured.
 * `offsetOnly` (by_name) always answers integer keys: it ignores JSON cursors (docs/api.md §4.6.3).
 */
export function nftPagination(
  page: PageRequest,
  result: { hasMore: boolean; total: string; lastCursor: Record<string, unknown> | undefined },
  options: { maxOffset: number | undefined; offsetOnly?: boolean },
): PaginationJson {
  const { hasMore, total, lastCursor } = result;
  const cursorKey = () => (hasMore && lastCursor ? encodeKey(JSON.stringify(lastCursor)) : null);
  if (!options.offsetOnly && page.cursorKind !== 'offset' && lastCursor !== undefined) {
    return { previous_key: null, next_key: cursorKey(), total };
  }
  const nextOffset = page.offset + page.limit;
  const deep = !options.offsetOnly && nextOffset > (options.maxOffset ?? DEFAULT_MAX_OFFSET);
  return {
    previous_key: previousOffsetKey(page),
    next_key: !hasMore ? null : deep ? cursorKey() : encodeKey(String(nextOffset)),
    total,
  };
}
