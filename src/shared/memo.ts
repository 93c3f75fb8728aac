/**
 * Memoises a pure single-key function in a bounded map that is simply cleared when full: the keys
 * (addresses, public keys) are a small hot set, so an LRU's bookkeeping would not pay for itself.
 * Results of undefined are memoised too.
 */
export function boundedMemo<V>(fn: (key: string) => V, limit: number): (key: string) => V {
  const memo = new Map<string, V>();
  return (key) => {
    // One look-up in the usual case (a hit on a defined value); has() only for a memoised undefined.
    const known = memo.get(key);
    if (known !== undefined || memo.has(key)) return known as V;
    const value = fn(key);
    if (memo.size >= limit) memo.clear();
    memo.set(key, value);
    return value;
  };
}
