import { ERROR_CODES } from '../../src/shared/error-codes.js';

/** Where docs/api.md §12 holds the table, between these two lines. */
export const TABLE_START = '<!-- error-codes:start -->';
export const TABLE_END = '<!-- error-codes:end -->';

/** The markdown table docs/api.md §12 must hold: one row per code of the registry, in its order. */
export function renderErrorCodeTable(): string {
  const rows = Object.entries(ERROR_CODES).map(
    ([code, info]) =>
      `| \`${code}\` | ${info.answer} | ${info.retryable ? 'retryable' : 'final'} | ${info.meaning} |`,
  );
  return ['| code | answer | retry | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** The text between the markers, trimmed; undefined when a marker is missing. */
export function tableInDocs(markdown: string): string | undefined {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start < 0 || end < start) return undefined;
  return markdown.slice(start + TABLE_START.length, end).trim();
}

/**
 * Codes a source file hands to the error classes as literals: `new AppError('x'`, `new InputError(`
 * and `NotFoundError(` likewise, a subclass's `super('x'`, `HttpError`'s fourth argument, and the
 * helpers that pass a code through (`fail(ep, 'x'`, `fatal('x'`).
 */
export function thrownCodeLiterals(source: string): string[] {
  const patterns = [
    /new (?:AppError|InputError|NotFoundError|PubKeyError)\(\s*'([a-z0-9_]+)'/g,
    /\bsuper\(\s*'([a-z0-9_]+)'/g,
    /new HttpError\([^;]*?,\s*'([a-z0-9_]+)',?\s*\)/g,
    /\bfail\(ep, (?:[^,]*\? )?'([a-z0-9_]+)'/g,
    /\bfatal\(\s*'([a-z0-9_]+)'/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!));
}
