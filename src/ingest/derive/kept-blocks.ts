import type { RawBlock } from '../../node/types.js';

/**
 * What a stage takes from each block as the block stream fetches it, kept by height until the
 * stage reaches that height, so the stage need not fetch the block from the node a second time.
 * A height is the same block whoever fetches it (CometBFT blocks are final), so an extract taken
 * before the block stream commits it, or taken twice, is the same. The store is bounded: past
 * `maxItems` kept items nothing more is taken, and the stage reads those heights from the node, as
 * it does after a restart (nothing here survives one).
 */
export interface KeptBlocks<T> {
  /** Takes the extract of each block fetched (a height not produced yet is undefined). */
  record(blocks: readonly (RawBlock | undefined)[]): void;
  /** Takes extracts made elsewhere (a prepare worker), as `record` would have taken them. */
  recordTaken(taken: readonly { height: number; items: T[] }[]): void;
  /** The extract kept for a height, undefined when none is. */
  get(height: number): T[] | undefined;
  /** Forgets every height below `height`: the stage has passed them. */
  dropBelow(height: number): void;
}

export function createKeptBlocks<T>(extract: (block: RawBlock) => T[], maxItems: number): KeptBlocks<T> {
  const kept = new Map<number, T[]>();
  let items = 0;
  let passed = 0;
  const keep = (height: number, taken: T[]) => {
    if (height < passed || kept.has(height) || items + taken.length > maxItems) return;
    kept.set(height, taken);
    items += taken.length;
  };
  return {
    record(blocks) {
      for (const block of blocks) {
        if (!block || block.height < passed || kept.has(block.height)) continue;
        let taken: T[];
        try {
          taken = extract(block);
        } catch {
          continue; // the stage reads this height itself, and meets the failure there
        }
        keep(block.height, taken);
      }
    },
    recordTaken(taken) {
      for (const t of taken) keep(t.height, t.items);
    },
    get: (height) => kept.get(height),
    dropBelow(height) {
      passed = Math.max(passed, height);
      for (const [h, taken] of kept) {
        if (h >= height) continue;
        kept.delete(h);
        items -= taken.length;
      }
    },
  };
}
