import type { Pagination } from '../wire/pagination.js';
import { encodeKey, previousOffsetKey, type PageRequest } from './pagination.js';
import { DEFAULT_MAX_OFFSET } from '../store/pagination.js';
import type { NftCollectionValue } from '../wire/nft-collection.js';
import type { NftTokenPieces } from '../wire/nft-token.js';

/** The NFT lists' keys: the cursors of their rows and their pagination objects. */

/** Cursor of a collection row: `{"height":N,"object_addr":"0x…"}` (keys sorted, compact). */
export const collectionCursor = (row: NftCollectionValue) => ({
  height: row.height,
  object_addr: `0x${row.addr}`,
});

/** Cursor of a token row, read back from its JSON; the collection only when the list spans collections. */
export function tokenCursor(row: NftTokenPieces, spansCollections: boolean): Record<string, unknown> {
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
): Pagination {
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
