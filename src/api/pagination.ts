import type { KeysetPlan } from '../store/pagination.js';
import { InputError } from '../shared/errors.js';
import type { Pagination } from '../wire/pagination.js';

/**
 * HTTP pagination of the read API (docs/api.md): the `pagination.*` query parameters
 * parsed into a typed page request (every error names the parameter), the store's keyset/offset
 * plan made from it, and the `{previous_key, next_key, total}` object built from the rows found.
 */

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** `offset`: integer keys; the others name the JSON cursor a key carries. */
export type CursorKind = 'sequence' | 'height' | 'composite' | 'offset';

export interface PageRequest {
  limit: number;
  offset: number;
  reverse: boolean;
  countTotal: boolean;
  /** Route default unless a JSON key switched it. */
  cursorKind: CursorKind;
  /** The decoded JSON cursor object, when the key was one. */
  cursor?: Record<string, unknown>;
}

/** The `pagination.*` query parameters, as sent (every value text). */
export interface PaginationQuery {
  readonly 'pagination.key'?: string | undefined;
  readonly 'pagination.offset'?: string | undefined;
  readonly 'pagination.limit'?: string | undefined;
  readonly 'pagination.count_total'?: string | undefined;
  readonly 'pagination.reverse'?: string | undefined;
}

const ATOI_RE = /^[+-]?[0-9]+$/;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Go's strconv.Atoi: optional sign, decimal digits, int64 range; anything else is undefined. */
export function atoi(text: string): bigint | undefined {
  if (!ATOI_RE.test(text)) return undefined;
  const value = BigInt(text);
  return value > INT64_MAX || value < INT64_MIN ? undefined : value;
}

/** Go's strconv.ParseBool, with a default for anything it does not accept. */
export function parseGoBool(text: string | undefined, fallback: boolean): boolean {
  if (text === undefined) return fallback;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return fallback;
}

/** Offsets beyond 2^53 select nothing anyway; keep them exact enough for SQL. */
function toSafeNumber(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** Parses pagination in the reference's order: limit, offset, then key. */
export function parsePagination(query: PaginationQuery, defaultCursor: CursorKind): PageRequest {
  let limit = DEFAULT_LIMIT;
  const rawLimit = query['pagination.limit'];
  const parsedLimit = rawLimit === undefined ? undefined : atoi(rawLimit);
  if (parsedLimit !== undefined) {
    if (parsedLimit < 1n || parsedLimit > BigInt(MAX_LIMIT)) {
      throw new InputError('invalid_pagination', `pagination.limit must be between 1 and ${MAX_LIMIT}`);
    }
    limit = Number(parsedLimit);
  }

  let offset = 0;
  const rawOffset = query['pagination.offset'];
  const parsedOffset = rawOffset === undefined ? undefined : atoi(rawOffset);
  if (parsedOffset !== undefined) {
    if (parsedOffset < 0n) throw new InputError('invalid_pagination', 'pagination.offset cannot be negative');
    offset = toSafeNumber(parsedOffset);
  }

  const page: PageRequest = {
    limit,
    offset,
    reverse: parseGoBool(query['pagination.reverse'], true),
    countTotal: parseGoBool(query['pagination.count_total'], true),
    cursorKind: defaultCursor,
  };
  const rawKey = query['pagination.key'];
  if (rawKey !== undefined && rawKey !== '') applyKey(page, rawKey);
  return page;
}

function applyKey(page: PageRequest, rawKey: string): void {
  if (!BASE64_RE.test(rawKey)) {
    throw new InputError('invalid_pagination', 'pagination.key must be a valid base64 encoded string');
  }
  const decoded = Buffer.from(rawKey, 'base64').toString('utf8');
  if (decoded.trim().startsWith('{')) {
    const cursor = parseJsonObject(decoded) ?? parseJsonObject(undoLastByteIncrement(decoded));
    if (cursor === undefined) {
      // The reference then tries the text as an integer, which a '{' can never be.
      throw new InputError('invalid_pagination', 'invalid pagination.key format');
    }
    page.cursor = cursor;
    page.cursorKind = cursorKindOf(cursor);
    return;
  }
  const asInteger = atoi(decoded);
  if (asInteger === undefined || asInteger < 0n) {
    throw new InputError('invalid_pagination', 'pagination.key must decode to a nonnegative integer');
  }
  page.offset = toSafeNumber(asInteger);
}

/**
 * Celatone's explorer adds 1 to the last byte of a blocks key before sending it back (its
 * workaround for an older indexer whose keys were inclusive), so the closing `}` of our JSON
 * cursor arrives as `~`. It means the cursor we handed out, which is already exclusive.
 */
function undoLastByteIncrement(text: string): string {
  return text.endsWith('~') ? `${text.slice(0, -1)}}` : text;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return value as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function cursorKindOf(cursor: Record<string, unknown>): CursorKind {
  if ('sequence' in cursor) return 'sequence';
  if ('height' in cursor && 'token_id' in cursor) return 'composite';
  if ('height' in cursor) return 'height';
  return 'offset';
}

/**
 * Keyset when the key is a cursor of this column holding a safe integer; otherwise offset
 * paging (a malformed cursor value quietly falls back, it is never an error).
 */
export function planKeyset(page: PageRequest, column: 'sequence' | 'height'): KeysetPlan {
  const value = page.cursor?.[column];
  if (page.cursorKind === column && typeof value === 'number' && Number.isSafeInteger(value)) {
    return { after: value, offset: 0, limit: page.limit, desc: page.reverse };
  }
  return { offset: page.offset, limit: page.limit, desc: page.reverse };
}

/** A pagination key: the base64 of its text (a decimal offset or a JSON cursor). */
export const encodeKey = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/**
 * `previous_key` of the offset builder (docs/api.md §2.3 A): the offset one page back, only when a whole page
 * fits before this one (`offset=50&limit=100` has none, as in the reference).
 */
export const previousOffsetKey = (page: { offset: number; limit: number }): string | null =>
  page.offset > 0 && page.offset >= page.limit ? encodeKey(String(page.offset - page.limit)) : null;

/**
 * Builder (B) of docs/api.md §2.3 with docs/api.md §0.3: cursor keys on cursor routes, integer keys in offset
 * mode, and next_key only when another row exists after this page.
 */
export function buildPagination(
  page: PageRequest,
  result: { column: 'sequence' | 'height'; lastValue: number | undefined; hasMore: boolean; total: string },
): Pagination {
  if (page.cursorKind !== 'offset' && result.lastValue !== undefined) {
    return {
      previous_key: null,
      next_key: result.hasMore ? encodeKey(JSON.stringify({ [result.column]: result.lastValue })) : null,
      total: result.total,
    };
  }
  return {
    previous_key: previousOffsetKey(page),
    next_key: result.hasMore ? encodeKey(String(page.offset + page.limit)) : null,
    total: result.total,
  };
}
