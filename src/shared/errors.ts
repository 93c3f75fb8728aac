import type { ErrorCode } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

/**
 * One error model for every part: a stable code from the registry (`error-codes.ts`, listed in
 * docs/api.md §12), a short message, an optional cause, and whether retrying the same operation
 * may succeed.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
}

/** Bad input from a user: CLI flag, env var, HTTP parameter, file. Never retryable. */
export class InputError extends AppError {
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, { details });
    this.name = 'InputError';
  }
}

/** A required record does not exist. */
export class NotFoundError extends AppError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = 'NotFoundError';
  }
}

export function isRetryable(err: unknown): boolean {
  return err instanceof AppError && err.retryable;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
