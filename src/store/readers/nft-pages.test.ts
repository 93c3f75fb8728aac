import { describe, expect, it } from 'vitest';
import { createVersionProbe } from './nft-pages.js';

/** A version store whose reads the test answers one by one. */
function versions() {
  const pending: Array<{ value: number; resolve: (v: string) => void }> = [];
  const store = { value: 1, sent: 0 };
  const probe = createVersionProbe(
    () =>
      new Promise<string>((resolve) => {
        store.sent += 1;
        // The read sees the store as it is when it is sent.
        pending.push({ value: store.value, resolve });
      }),
  );
  const answerNext = async () => {
    await Promise.resolve();
    const read = pending.shift();
    read?.resolve(String(read.value));
    // Let the settle and queued callbacks run.
    for (let i = 0; i < 5; i += 1) await Promise.resolve();
  };
  return { store, probe, answerNext };
}

describe('NFT version probe', () => {
  it('gives each caller a read sent after it asked, one read in flight for any number of callers', async () => {
    const { store, probe, answerNext } = versions();
    const first = probe();
    expect(store.sent).toBe(1);
    // A commit lands while the first read is in flight; callers arriving now must see it.
    store.value = 2;
    const later = [probe(), probe(), probe()];
    expect(store.sent).toBe(1);
    await answerNext();
    expect(await first).toBe('1');
    expect(store.sent).toBe(2);
    await answerNext();
    expect(await Promise.all(later)).toEqual(['2', '2', '2']);
    // Nothing in flight: the next caller sends its own read.
    store.value = 3;
    const last = probe();
    expect(store.sent).toBe(3);
    await answerNext();
    expect(await last).toBe('3');
  });

  it('a failed read fails its callers only; the next caller reads again', async () => {
    let fail = true;
    const probe = createVersionProbe(async () => {
      if (fail) throw new Error('database away');
      return 'v';
    });
    await expect(probe()).rejects.toThrow('database away');
    fail = false;
    await expect(probe()).resolves.toBe('v');
  });
});
