/**
 * Dictionary ids (account_dict, msg_type_dict) of what subscribers filter on. Hits are kept (an
 * id never changes); misses — accounts or types never seen on chain, which most account
 * subscribers of a busy process are — are kept too, and asked again only when the dictionaries
 * may have grown since, so they do not cost a lookup per chunk.
 *
 * "May have grown" is read from the dictionaries' identity sequences (a mark read with each
 * position). A sequence moves on every insert, committed or not, and also when an insert meets an
 * existing key (ON CONFLICT DO NOTHING still draws a value). The block writer is the only writer
 * of tx edges and commits one checkpoint at a time, and it inserts every account or type it has
 * not interned itself before — so the transaction that brings an account's first edge moves a
 * sequence after the previous checkpoint committed, even when another writer (rich list,
 * internal txs) created the row. Hence at each position read k, the misses stay valid when the
 * mark now equals the mark read just before the latest read whose position was below read k-1's
 * (that read happened before the previous checkpoint committed). Anything else asks again.
 */
export interface DictionaryIds {
  /**
   * Call once per position read, with the mark read in the same statement (after its snapshot);
   * `undefined` (a replica, where sequences are replayed in batches) means "always ask again".
   */
  observe(position: number, mark: string | undefined): void;
  /** Ids of the names that exist; names absent from the dictionary are left out. */
  resolve(
    names: Iterable<string>,
    lookUp: (missing: string[]) => Promise<Map<string, number>>,
  ): Promise<Map<string, number>>;
}

/** Kept hits past which the cache starts over (a stream may see any number of accounts over time). */
const MAX_KEPT = 200_000;

export function createDictionaryIds(): DictionaryIds {
  const hits = new Map<string, number>();
  const misses = new Set<string>();
  const reads: { position: number; mark: string | undefined }[] = [];

  /** True when misses confirmed before read k may have been inserted since (see above). */
  const mayHaveGrown = (): boolean => {
    const k = reads.length - 1;
    if (k < 1 || reads[k]!.mark === undefined) return true;
    const previous = reads[k - 1]!.position;
    let anchor = k - 1;
    while (anchor >= 0 && reads[anchor]!.position >= previous) anchor -= 1;
    // The mark read before the anchor read (the anchor's own mark is read after its snapshot).
    const before = anchor >= 1 ? reads[anchor - 1]!.mark : undefined;
    return before === undefined || before !== reads[k]!.mark;
  };

  return {
    observe(position, mark) {
      reads.push({ position, mark });
      if (mayHaveGrown()) misses.clear();
      // Keep what the next read's rule can reach: from the read before the latest anchor on.
      const previous = reads.at(-1)!.position;
      let anchor = reads.length - 1;
      while (anchor >= 0 && reads[anchor]!.position >= previous) anchor -= 1;
      if (anchor >= 1) reads.splice(0, anchor - 1);
    },
    async resolve(names, lookUp) {
      if (hits.size > MAX_KEPT) hits.clear();
      if (misses.size > MAX_KEPT) misses.clear();
      const wanted = [...names];
      const missing = wanted.filter((n) => !hits.has(n) && !misses.has(n));
      if (missing.length > 0) {
        const found = await lookUp(missing);
        for (const name of missing) {
          const id = found.get(name);
          if (id === undefined) misses.add(name);
          else hits.set(name, id);
        }
      }
      const out = new Map<string, number>();
      for (const name of wanted) {
        const id = hits.get(name);
        if (id !== undefined) out.set(name, id);
      }
      return out;
    },
  };
}
