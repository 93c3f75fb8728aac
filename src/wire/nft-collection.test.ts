import { describe, expect, it } from 'vitest';
import { rfc3339FromMicros } from './nft-collection.js';

describe('rfc3339FromMicros', () => {
  it.each([
    ['2026-01-01T13:52:23.000000', '2026-01-01T13:52:23Z'],
    ['2026-01-01T13:52:23.120000', '2026-01-01T13:52:23.12Z'],
    ['2026-01-01T13:52:23.000001', '2026-01-01T13:52:23.000001Z'],
    ['2026-01-01T13:52:23', '2026-01-01T13:52:23Z'],
  ])('%s -> %s', (stored, text) => expect(rfc3339FromMicros(stored)).toBe(text));
});
