/**
 * Exact decimals for weights and scores: a value is an integer count of 10^-18 units, so
 * weight × value sums stay exact however many metrics and addresses there are.
 */

export const SCALE_DIGITS = 18;
export const SCALE = 10n ** 18n;

export interface Decimal {
  /** Canonical text: no leading zeros, no trailing fractional zeros ("0.5", "12"). */
  text: string;
  /** value × 10^18 */
  scaled: bigint;
}

/** Parses "12", "0.0001", "5.50"; undefined for anything else (negative, exponent, > 18 digits). */
export function parseDecimal(text: string): Decimal | undefined {
  const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text.trim());
  if (!m) return undefined;
  const scaled = BigInt(m[1]!) * SCALE + BigInt((m[2] ?? '').padEnd(SCALE_DIGITS, '0') || '0');
  return { text: formatScaled(scaled), scaled };
}

/** A 10^-18-scaled integer as decimal text, without trailing fractional zeros. */
export function formatScaled(scaled: bigint): string {
  const negative = scaled < 0n;
  const abs = negative ? -scaled : scaled;
  const whole = abs / SCALE;
  const frac = (abs % SCALE).toString().padStart(SCALE_DIGITS, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export type RoundingMode = 'floor' | 'round_half_up' | 'ceil';

/** A non-negative 10^-18-scaled value rounded to a whole number. */
export function roundScaled(scaled: bigint, mode: RoundingMode): bigint {
  const whole = scaled / SCALE;
  const rest = scaled % SCALE;
  if (rest === 0n) return whole;
  if (mode === 'ceil') return whole + 1n;
  if (mode === 'round_half_up') return rest * 2n >= SCALE ? whole + 1n : whole;
  return whole;
}
