import { toBech32 } from '../shared/address.js';
import {
  DEFAULT_MAX_OFFSET,
  encodeKey,
  previousOffsetKey,
  type PageRequest,
  type PaginationJson,
} from '../store/pagination.js';
import type { CollectionRow } from '../store/readers/nft-collections.js';
import type { TokenRow } from '../store/readers/nft-tokens.js';

/** NFT objects of spec/api.md §5.6–5.7 in their field order, and the keys of the NFT lists. */

/** Go's RFC3339Nano of a microsecond time: trailing zeros of the fraction dropped, 'Z'. */
export function rfc3339Nano(ts: string): string {
  const [whole, fraction = ''] = ts.split('.');
  const kept = fraction.replace(/0+$/, '');
  return `${whole}${kept ? `.${kept}` : ''}Z`;
}

const hexAddr = (hex: string | null) => (hex ? `0x${hex}` : '');
const bech32Or = (bytes: Buffer | null, prefix: string) => (bytes ? toBech32(bytes, prefix) : '');

export function renderCollection(row: CollectionRow, prefix: string): string {
  return (
    `{"object_addr":${JSON.stringify(hexAddr(row.addr))},"collection":{` +
    `"creator":${JSON.stringify(bech32Or(row.creator, prefix))},"name":${JSON.stringify(row.name)},` +
    `"origin_name":${JSON.stringify(row.originName)},"nfts":{"handle":"","length":${row.nftCount}}},` +
    `"height":${row.height},"timestamp":"${rfc3339Nano(row.ts)}"}`
  );
}

export function renderToken(row: TokenRow, prefix: string): string {
  return (
    `{"collection_addr":${JSON.stringify(hexAddr(row.collectionAddr))},` +
    `"collection_name":${JSON.stringify(row.collectionName)},` +
    `"collection_origin_name":${JSON.stringify(row.collectionOriginName)},` +
    `"object_addr":${JSON.stringify(hexAddr(row.objectAddr))},"owner":${JSON.stringify(bech32Or(row.owner, prefix))},` +
    `"nft":{"token_id":${JSON.stringify(row.tokenId)},"uri":${JSON.stringify(row.uri)}},` +
    `"height":${row.height},"timestamp":"${rfc3339Nano(row.ts)}"}`
  );
}

/** Cursor of a collection row: `{"height":N,"object_addr":"0x…"}` (keys sorted, compact). */
export const collectionCursor = (row: CollectionRow) => ({
  height: row.height,
  object_addr: `0x${row.addr}`,
});

/** Cursor of a token row; the collection only when the list spans collections. */
export function tokenCursor(row: TokenRow, spansCollections: boolean): Record<string, unknown> {
  return spansCollections
    ? { collection_addr: `0x${row.collectionAddr}`, height: row.height, token_id: row.tokenId }
    : { height: row.height, token_id: row.tokenId };
}

/**
 * Keys of the offset-default NFT lists (§2.3 builder B with decision 3): a JSON cursor when the
 * client sent one; otherwise base64 integer offsets like the reference, until the next offset
 * would pass the deepest offset the server scans (API_MAX_OFFSET): from there the next key is the
 * last row's cursor, a key look-up at any depth, so every key handed out is honoured.
 * `offsetOnly` (by_name) always answers integer keys: it ignores JSON cursors (§7 item 24).
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
