import type { Outcome } from '../jsonrpc.js';

/**
 * Parameter decoding for the CometBFT methods clients call, as CometBFT's RPC server converts
 * them: POST JSON-RPC carries `[]byte` as base64 and `HexBytes` as hex; the GET URI form carries
 * both as `0x…` hex and strings quoted or bare.
 */
export const internalError = (data: string): Outcome => ({
  error: { code: -32603, message: 'Internal error', data },
});
export const invalidParams = (data: string): Outcome => ({
  error: { code: -32602, message: 'Invalid params', data },
});
const conversion = (text: string): Outcome =>
  invalidParams(`error converting json params to arguments: ${text}`);

export function isOutcome(value: unknown): value is Outcome {
  return typeof value === 'object' && value !== null && 'error' in value;
}

/** A string parameter: a JSON string, or a URI value with or without its quotes. */
export function stringParam(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = String(value);
  return /^".*"$/s.test(text) ? text.slice(1, -1) : text;
}

/** A `[]byte` parameter: `0x` hex (URI) or base64 (JSON). */
export function bytesParam(value: unknown, name: string): Buffer | Outcome {
  const text = stringParam(value);
  if (/^0x[0-9a-fA-F]*$/.test(text)) {
    if (text.length % 2 !== 0) return conversion(`${name}: encoding/hex: odd length hex string`);
    return Buffer.from(text.slice(2), 'hex');
  }
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0)
    return conversion(`${name}: illegal base64 data at input byte 0`);
  return Buffer.from(text, 'base64');
}

/** A `HexBytes` parameter: hex with or without `0x`. */
export function hexParam(value: unknown, name: string): Buffer | Outcome {
  const text = stringParam(value).replace(/^0x/, '');
  if (!/^[0-9a-fA-F]*$/.test(text) || text.length % 2 !== 0)
    return conversion(`${name}: encoding/hex: invalid byte in "${text}"`);
  return Buffer.from(text, 'hex');
}

export function boolParam(value: unknown, name: string): boolean | Outcome {
  if (value === undefined || value === null || value === '') return false;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return conversion(`${name}: strconv.ParseBool: parsing "${String(value)}": invalid syntax`);
}

/** An optional int parameter: absent/null → undefined; "5", 5, "\"5\"" → 5. */
export function intParamOf(value: unknown, name: string): number | undefined | Outcome {
  if (value === undefined || value === null || value === '') return undefined;
  const text = String(value).replace(/^"(.*)"$/, '$1');
  if (!/^-?\d+$/.test(text)) return conversion(`${name}: invalid syntax "${text}"`);
  return Number(text);
}

export interface Paging {
  page: number | undefined;
  perPage: number;
}

/** rpc/core/env.go validatePerPage: default 30, at most 100, below 1 → default. */
export function pagingParams(params: Record<string, unknown>): Paging | Outcome {
  const page = intParamOf(params.page, 'page');
  if (isOutcome(page)) return page;
  const per = intParamOf(params.per_page, 'per_page');
  if (isOutcome(per)) return per;
  const perPage = per === undefined || per < 1 ? 30 : Math.min(per, 100);
  return { page, perPage };
}

/** rpc/core/env.go validatePage: the slice [skip, skip + size) of `total` results, or the error. */
export function pageSlice(paging: Paging, total: number): { skip: number; size: number } | Outcome {
  const pages = Math.max(1, Math.floor((total - 1) / paging.perPage) + 1);
  const page = paging.page ?? 1;
  if (paging.page !== undefined && (page <= 0 || page > pages))
    return internalError(`page should be within [1, ${pages}] range, given ${page}`);
  const skip = (page - 1) * paging.perPage;
  return { skip, size: Math.max(0, Math.min(paging.perPage, total - skip)) };
}

/** rpc/core/env.go getHeight: absent → latest; else within [base, latest] with CometBFT's errors. */
export function resolveHeight(ctx: { base(): number }, raw: unknown, latest: number): number | Outcome {
  const h = intParamOf(raw, 'height');
  if (h === undefined) return latest;
  if (isOutcome(h)) return h;
  if (h <= 0) return internalError(`height must be greater than 0, but got ${h}`);
  if (h > latest) {
    return internalError(`height ${h} must be less than or equal to the current blockchain height ${latest}`);
  }
  const base = ctx.base();
  if (h < base) return internalError(`height ${h} is not available, lowest height is ${base}`);
  return h;
}

/** Positional parameter names (CometBFT routes.go) of the client-facing methods. */
export const CLIENT_PARAM_NAMES: Record<string, string[]> = {
  tx: ['hash', 'prove'],
  tx_search: ['query', 'prove', 'page', 'per_page', 'order_by'],
  block_search: ['query', 'page', 'per_page', 'order_by'],
  block_by_hash: ['hash'],
  header: ['height'],
  header_by_hash: ['hash'],
  commit: ['height'],
  genesis_chunked: ['chunk'],
  consensus_params: ['height'],
  unconfirmed_txs: ['limit'],
  abci_query: ['path', 'data', 'height', 'prove'],
  broadcast_tx_sync: ['tx'],
  broadcast_tx_async: ['tx'],
  broadcast_tx_commit: ['tx'],
  check_tx: ['tx'],
};
