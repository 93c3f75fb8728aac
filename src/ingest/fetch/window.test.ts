import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/logger.js';
import { ChunkFailedAt, createFetchWindow, PACED_CHUNK, type FetchWindowOptions } from './window.js';

function seeded(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('fetch window', () => {
  it('delivers every height once, in order, through lagging heads, not-yet answers and transient faults', async () => {
    const random = seeded(7);
    let head = 5;
    const requested: number[] = [];
    const window = createFetchWindow<number>({
      start: 3,
      chunkSize: 4,
      chunkWeight: 3,
      maxChunksInFlight: 3,
      maxBufferedWeight: 20,
      pollMs: 1,
      weight: () => 1,
      logger: silentLogger(),
      signal: new AbortController().signal,
      fetchHead: async () => {
        head += Math.floor(random() * 4);
        return head;
      },
      fetchChunk: async (heights) => {
        requested.push(...heights);
        await new Promise((r) => setTimeout(r, random() * 3));
        if (random() < 0.15) throw new AppError('node_timeout', 'simulated', { retryable: true });
        // Heights above the head, and sometimes the head itself (block_results lagging), are not ready.
        return heights.map((h) => (h > head || (h === head && random() < 0.3) ? undefined : h * 10));
      },
    });
    const got: number[] = [];
    while (got.length < 120) got.push(await window.next());
    expect(got).toEqual(Array.from({ length: 120 }, (_, i) => (i + 3) * 10));
    expect(Math.min(...requested)).toBe(3);
  });

  it('raises a fatal error to the consumer instead of skipping', async () => {
    const window = smallWindow({
      chunkSize: 2,
      maxBufferedWeight: 10,
      fetchHead: async () => 10,
      fetchChunk: async (heights) => {
        if (heights.includes(3)) throw new AppError('malformed_block', 'height 3: bad');
        return heights.map((h) => h);
      },
    });
    expect(await window.next()).toBe(1);
    expect(await window.next()).toBe(2);
    await expect(window.next()).rejects.toThrow(/height 3/);
  });

  it('a fatal failure surfaces at the lowest failing height, after every height before it, whichever failed first in time', async () => {
    let releaseLow!: () => void;
    const lowMayFail = new Promise<void>((resolve) => (releaseLow = resolve));
    const window = smallWindow({
      chunkSize: 4,
      maxBufferedWeight: 100,
      fetchHead: async () => 8,
      fetchChunk: async (heights) => {
        if (heights[0] === 5) {
          // The later chunk fails first; only then may the earlier one fail part-way, at height 3.
          setImmediate(releaseLow);
          throw new AppError('nft_lookup_failed', 'height 6: look-up failed');
        }
        await lowMayFail;
        throw new ChunkFailedAt(3, [1, 2], new AppError('nft_lookup_failed', 'height 3: look-up failed'));
      },
    });
    expect(await window.next()).toBe(1);
    expect(await window.next()).toBe(2);
    await expect(window.next()).rejects.toThrow(/^height 3: look-up failed$/);
  });

  it('keeps to its share of chunks in flight and of buffered weight, asked again as the share changes', async () => {
    let share = 0.5;
    const pending: Array<{ heights: readonly number[]; release: () => void }> = [];
    let onRequest: (() => void) | undefined;
    const requests = (n: number) =>
      new Promise<void>((resolve) => {
        onRequest = () => pending.length >= n && resolve();
        onRequest();
      });
    const window = createFetchWindow<number>({
      start: 1,
      chunkSize: 1,
      chunkWeight: 1,
      maxChunksInFlight: 6,
      maxBufferedWeight: 8,
      share: () => share,
      pollMs: 1,
      weight: () => 1,
      logger: silentLogger(),
      signal: new AbortController().signal,
      fetchHead: async () => 100,
      fetchChunk: (heights) =>
        new Promise((resolve) => {
          pending.push({ heights, release: () => resolve(heights.map((h) => h)) });
          onRequest?.();
        }),
    });
    await requests(3);
    await new Promise((r) => setImmediate(r));
    expect(pending.length).toBe(3); // half of 6 chunks
    const release = (from: number, to: number) => pending.slice(from, to).forEach((p) => p.release());
    const settled = () => new Promise((r) => setImmediate(r));
    // Each chunk landing asks for the next while under half of 8 is buffered.
    release(0, 3);
    await requests(6);
    await settled();
    expect([pending.length, window.depth()]).toEqual([6, { buffered: 3, inFlight: 3 }]);
    release(3, 6);
    await settled();
    expect([pending.length, window.depth()]).toEqual([6, { buffered: 6, inFlight: 0 }]);
    share = 1; // taking a height asks the share again: now 6 chunks, 8 txs
    expect(await window.next()).toBe(1);
    await requests(12);
    await settled();
    expect([pending.length, window.depth()]).toEqual([12, { buffered: 5, inFlight: 6 }]);
  });
});

describe('a fetch window that gives way (docs/chains.md §5)', () => {
  /**
   * The chunks a window asks for up to `until`, and the most it kept in flight at once when asking
   * for a chunk more than PACED_CHUNK heights below the head (the last few are the head's).
   */
  async function chunksAsked(head: number, until: number, givesWay: () => boolean, pacedMaxMs?: number) {
    const asked: number[][] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const window = createFetchWindow<number>({
      start: 1,
      chunkSize: 20,
      chunkWeight: 1_000,
      maxChunksInFlight: 6,
      maxBufferedWeight: 10_000,
      givesWay,
      pacedMaxMs,
      pollMs: 1,
      weight: () => 1,
      logger: silentLogger(),
      signal: new AbortController().signal,
      fetchHead: async () => head,
      fetchChunk: async (heights) => {
        asked.push([...heights]);
        inFlight++;
        if (head - heights[0]! + 1 > PACED_CHUNK) mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return heights.map((h) => h);
      },
    });
    for (let h = 1; h <= until; h++) expect(await window.next()).toBe(h);
    return { sizes: asked.map((c) => c.length), mostInFlight };
  }

  it('catching up while another chain is at its head: one chunk of at most 5 heights at a time', async () => {
    const { sizes, mostInFlight } = await chunksAsked(60, 60, () => true);
    expect(Math.max(...sizes)).toBe(PACED_CHUNK);
    expect(mostInFlight).toBe(1);
  });

  it('at full speed when no other chain is at its head', async () => {
    const alone = await chunksAsked(60, 60, () => false);
    expect(alone.sizes).toEqual([20, 20, 20]);
    expect(alone.mostInFlight).toBe(3);
  });

  it('at full speed once it has given way for its time, until it is caught up', async () => {
    // 80 paced chunks take at least 80 pauses and answers of a millisecond or more: past 20 ms.
    const { sizes, mostInFlight } = await chunksAsked(400, 400, () => true, 20);
    expect(sizes[0]).toBe(PACED_CHUNK);
    expect(sizes).toContain(20);
    expect(mostInFlight).toBeGreaterThan(1);
  });
});

/** A window from height 1 over two chunks in flight, items = their heights. */
function smallWindow(
  over: Pick<FetchWindowOptions<number>, 'chunkSize' | 'maxBufferedWeight' | 'fetchHead' | 'fetchChunk'>,
) {
  return createFetchWindow<number>({
    start: 1,
    chunkWeight: 100,
    maxChunksInFlight: 2,
    pollMs: 1,
    weight: () => 1,
    logger: silentLogger(),
    signal: new AbortController().signal,
    ...over,
  });
}
