import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const module = fileURLToPath(new URL('./heap-growth.ts', import.meta.url));

/**
 * The factors V8 applied to the old generation's limit after each full collection, in a fresh
 * node (`nodeArgs` on its command line) that calls capHeapGrowth, then keeps ~10 MB alive while it
 * allocates more (so that a few full collections happen).
 */
async function growthFactors(nodeArgs: string[]): Promise<number[]> {
  const script = `
    import { setFlagsFromString } from 'node:v8';
    import { capHeapGrowth } from ${JSON.stringify(module)};
    capHeapGrowth();
    setFlagsFromString('--trace-gc-verbose');
    const kept = [];
    for (let i = 0; i < 16; i++) {
      kept.push(Array.from({ length: 60_000 }, (_, j) => ({ j, s: 'x' + j })));
      if (kept.length > 3) kept.shift();
    }`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', script],
    { maxBuffer: 64 << 20 },
  );
  return [...stdout.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d)\)/g)].map((m) => Number(m[1]));
}

describe('capHeapGrowth', () => {
  it('lets the old generation grow to 2x of what a full collection kept, not up to 4x', async () => {
    const factors = await growthFactors([]);
    expect(factors.length).toBeGreaterThan(0);
    expect(factors.every((f) => f === 2)).toBe(true);
  }, 30_000);

  it("leaves node's own --heap-growing-percent alone", async () => {
    const factors = await growthFactors(['--heap-growing-percent=300']);
    expect(factors.length).toBeGreaterThan(0);
    expect(factors.every((f) => f === 4)).toBe(true);
  }, 30_000);
});
