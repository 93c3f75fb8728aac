/**
 * The key /collections/by_name matches on (docs/api.md §4.6.3): every run of characters that are not
 * Unicode letters, marks or digits removed, then lower-cased. Ingest stores it with each collection
 * (nft_collection.name_key / origin_name_key) and the API applies the same function to the query,
 * so the match is a plain substring test in SQL.
 */
export function nftNameKey(name: string): string {
  return name.replace(/[^\p{L}\p{M}\p{N}]+/gu, '').toLowerCase();
}
