/**
 * The order of an account's items across chains (docs/chains.md §4): (block time, chain id,
 * sequence), newest first by default. Block times are compared exactly as the chains stamp them
 * (RFC 3339 with up to nanoseconds), ties broken by chain id in byte order, then sequence.
 */
export interface MergeItem<T> {
  /** Sortable text of the item's block time: `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn`. */
  time: string;
  chainId: string;
  sequence: number;
  value: T;
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;

/** A UTC RFC 3339 time as fixed-width text whose byte order is time order (nanosecond exact). */
export function timeKey(timestamp: string): string {
  const m = RFC3339.exec(timestamp);
  if (!m) throw new Error(`not an RFC 3339 UTC time: ${timestamp}`);
  return `${m[1]}.${(m[2] ?? '').padEnd(9, '0')}`;
}

const byteCompare = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Ascending comparison of the order tuple. */
export function compareItems(a: MergeItem<unknown>, b: MergeItem<unknown>): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  const byChain = byteCompare(a.chainId, b.chainId);
  if (byChain !== 0) return byChain;
  return a.sequence - b.sequence;
}

/**
 * The first `limit` items of the union of every chain's candidates in walk order. Each chain's
 * candidates are its next rows in its own sequence order, which is already its walk order (a
 * chain's block times never go back), so the union's first `limit` are the walk's next page when
 * every chain offered `limit` rows (or all it had). `hasMore`: something was left over.
 */
export function mergePage<T>(
  candidates: readonly MergeItem<T>[],
  limit: number,
  desc: boolean,
): { items: MergeItem<T>[]; hasMore: boolean } {
  const sorted = [...candidates].sort((a, b) => (desc ? compareItems(b, a) : compareItems(a, b)));
  return { items: sorted.slice(0, limit), hasMore: sorted.length > limit };
}
