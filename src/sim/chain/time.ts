import { pick, Stream } from './prng.js';

/** Default genesis: 2025-01-01T00:00:00Z. */
export const GENESIS_MS = Date.UTC(2025, 0, 1);

/**
 * Block time of a height: genesis + h × block time, plus deterministic sub-millisecond jitter
 * (a quarter of the blocks have none, so trimmed fractions such as ".5Z" occur as in Go).
 */
export function blockTime(seed: number, height: number, blockTimeMs: number): { ms: number; nanos: number } {
  const ms = GENESIS_MS + height * blockTimeMs + pick(seed, Stream.timeJitter, height, 97);
  const nanos =
    pick(seed, Stream.timeJitter + 1, height, 4) === 0
      ? 0
      : pick(seed, Stream.timeJitter + 2, height, 1_000_000);
  return { ms, nanos };
}

/** Go's time.RFC3339Nano in UTC: fractional seconds with trailing zeros trimmed, "Z". */
export function rfc3339Nano(ms: number, nanos: number): string {
  const iso = new Date(ms).toISOString(); // 2025-01-01T00:00:00.000Z
  const frac = (String(ms % 1000).padStart(3, '0') + String(nanos).padStart(6, '0')).replace(/0+$/, '');
  return iso.slice(0, 19) + (frac === '' ? '' : '.' + frac) + 'Z';
}
