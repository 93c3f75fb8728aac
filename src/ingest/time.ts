const FRACTION_RE = /\.(\d{1,9})/;

/** RFC 3339 text → nanoseconds since the epoch (Date keeps only milliseconds). */
export function toEpochNanos(rfc3339: string): bigint {
  const fraction = FRACTION_RE.exec(rfc3339)?.[1] ?? '';
  const wholeSeconds = Date.parse(rfc3339.replace(FRACTION_RE, ''));
  if (Number.isNaN(wholeSeconds)) throw new Error(`invalid timestamp ${rfc3339}`);
  return BigInt(wholeSeconds) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
}

/** Milliseconds between two block times, truncated (Go's Duration.Milliseconds). */
export function millisBetween(previous: string, current: string): number {
  return Number((toEpochNanos(current) - toEpochNanos(previous)) / 1_000_000n);
}
