import { AppError } from './errors.js';

/** What a log line may say about an error and its causes: codes and short messages, no data. */
export interface ErrorSummary {
  code?: string;
  message: string;
  /** The driver's own error under an AppError (SQLSTATE or errno in `code`). */
  cause?: ErrorSummary;
}

/** Messages are cut here: a driver message names the failure in its first words. */
const MAX_MESSAGE = 200;
/** Anything that looks like a URL with credentials in it (a driver may echo its connection string). */
const CREDENTIALS_IN_URL = /(\w+:\/\/)[^/\s:@]+(?::[^/\s@]*)?@/g;

/**
 * An error and up to two causes beneath it, for a log line: the AppError's registry code, then the
 * driver's SQLSTATE or errno and message (credentials in URLs redacted, long messages cut). The
 * driver's `detail` is left out: it may carry row values.
 */
export function summarizeError(err: unknown, depth = 0): ErrorSummary {
  const message = (err instanceof Error ? err.message : String(err))
    .replace(CREDENTIALS_IN_URL, '$1***@')
    .slice(0, MAX_MESSAGE);
  const rawCode = err instanceof AppError ? err.code : (err as { code?: unknown } | null)?.code;
  const code = typeof rawCode === 'string' ? rawCode : undefined;
  const cause = err instanceof Error && depth < 2 && err.cause !== undefined ? err.cause : undefined;
  return {
    ...(code === undefined ? {} : { code }),
    message,
    ...(cause === undefined ? {} : { cause: summarizeError(cause, depth + 1) }),
  };
}
