/**
 * An LRU map bounded by entry count and by total weight (Map keeps insertion order; a hit is
 * moved to the end).
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  private weight = 0;
  constructor(
    private readonly capacity: number,
    private readonly maxWeight = Number.POSITIVE_INFINITY,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  /** The cached value, or `make()`'s, stored first (a memo over the LRU). */
  getOrSet(key: K, make: () => V): V {
    let value = this.get(key);
    if (value === undefined) this.set(key, (value = make()));
    return value;
  }

  set(key: K, value: V): void {
    const previous = this.map.get(key);
    if (previous !== undefined) {
      this.weight -= this.weigh(previous);
      this.map.delete(key);
    }
    this.map.set(key, value);
    this.weight += this.weigh(value);
    while (this.map.size > 1 && (this.map.size > this.capacity || this.weight > this.maxWeight)) {
      const oldest = this.map.entries().next();
      if (oldest.done) break;
      this.weight -= this.weigh(oldest.value[1]);
      this.map.delete(oldest.value[0]);
    }
  }
}
