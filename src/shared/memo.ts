/**
 * Memoises a pure single-key function in a bounded map that is simply cleared when full: the keys
 * (addresses, public keys) are a small hot set, so an LRU's bookkeeping would not pay for itself.
 * Results of undefined are memoised too.
 */
export function boundedMemo<V>(fn: (key: string) => V, limit: number): (key: string) => V {
  const memo = new Map<string, V>();
  return (key) => {
    if (memo.has(key)) return memo.get(key) as V;
    const value = fn(key);
    if (memo.size >= limit) memo.clear();
    memo.set(key, value);
    return value;
  };
}
