/**
 * Reusable memory for large response bodies (issue 24). A 100-tx page is ~0.7 MB; allocating a
 * fresh Buffer for each one counts as V8 external memory, and that growth alone schedules full
 * mark-compact collections of the whole heap every few dozen pages. Pages are assembled into
 * memory lent from here instead and given back once Node has handed the answer to the socket.
 */
export interface BodyPool {
  /** `length` bytes of uninitialised memory: lent when large, a plain allocation when small. */
  take(length: number): Buffer;
  /** Gives a lent body's memory back; anything else (a cached body, a small one) is ignored. */
  release(body: Buffer): void;
}

/** Below this a body is an ordinary allocation (Node pools the smallest ones itself). */
const MIN_POOLED = 64 * 1024;

export function createBodyPool(options: { maxBytes: number }): BodyPool {
  // Free blocks by size class (powers of two), and the blocks lent out now.
  const free = new Map<number, ArrayBuffer[]>();
  const lent = new WeakSet<ArrayBuffer>();
  let freeBytes = 0;
  return {
    take(length) {
      if (length < MIN_POOLED) return Buffer.allocUnsafe(length);
      const size = 2 ** Math.ceil(Math.log2(length));
      let block = free.get(size)?.pop();
      if (block) freeBytes -= size;
      else block = new ArrayBuffer(size);
      lent.add(block);
      return Buffer.from(block, 0, length);
    },
    release(body) {
      const block = body.buffer as ArrayBuffer;
      if (!lent.has(block)) return;
      lent.delete(block);
      if (freeBytes + block.byteLength > options.maxBytes) return;
      const list = free.get(block.byteLength) ?? [];
      list.push(block);
      free.set(block.byteLength, list);
      freeBytes += block.byteLength;
    },
  };
}
