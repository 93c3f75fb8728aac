import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FULL_TIER_ONLY } from './tiers.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('test/tiers.ts', () => {
  // A moved or renamed file would silently join the fast tier and lose its place in the order.
  it('names only test files that exist, each once', () => {
    const missing = FULL_TIER_ONLY.filter((file) => !existsSync(path.join(root, file)));
    expect(missing).toEqual([]);
    expect(FULL_TIER_ONLY.every((file) => file.endsWith('.test.ts'))).toBe(true);
    expect(new Set(FULL_TIER_ONLY).size).toBe(FULL_TIER_ONLY.length);
  });
});
