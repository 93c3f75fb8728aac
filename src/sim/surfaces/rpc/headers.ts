import { commitSignature, type GeneratedBlock } from '../../chain/blocks.js';
import type { Outcome } from '../jsonrpc.js';
import type { ClientRpcContext } from './client-context.js';
import {
  bytesParam,
  hexParam,
  internalError,
  isOutcome,
  pageSlice,
  pagingParams,
  resolveHeight,
  stringParam,
} from './params.js';
import { eventsMatch, heightRange, parseQuery, QueryError, type Condition } from './query.js';
import type { SimEvent } from '../../chain/events.js';

/**
 * header, header_by_hash, block_by_hash, commit and block_search, cut from the cached /block
 * text (the same bytes /block serves). Block hashes are seed-derived, not invertible: a hash is
 * looked up among the most recent MAX_HASH_SCAN heights.
 */
export const MAX_HASH_SCAN = 100_000;
/** The most heights one search may generate to test event conditions (a real node has an index). */
export const MAX_SEARCH_SCAN = 5_000;

/** The parts of one /block result text. */
export function blockParts(b: GeneratedBlock): { blockId: string; header: string; lastCommit: string } {
  const json = b.blockJson;
  return {
    blockId: json.slice(json.indexOf('{', 12), json.indexOf(',"block":')),
    header: json.slice(json.indexOf('"header":') + 9, json.indexOf(',"data":')),
    lastCommit: json.slice(json.indexOf(',"last_commit":') + 15, json.length - 2),
  };
}

/** The height of a block hash (upper hex), or undefined beyond the scanned window. */
export function heightOfHash(ctx: ClientRpcContext, hashHex: string): number | undefined {
  const head = ctx.head();
  const low = Math.max(ctx.base(), head - MAX_HASH_SCAN + 1);
  for (let h = head; h >= low; h--) if (ctx.chain.blockHash(h) === hashHex) return h;
  return undefined;
}

const EMPTY_BLOCK = '{"block_id":{"hash":"","parts":{"total":0,"hash":""}},"block":null}';

export function header(ctx: ClientRpcContext, params: Record<string, unknown>): Outcome {
  const h = resolveHeight(ctx, params.height, ctx.head());
  if (typeof h !== 'number') return h;
  return { result: `{"header":${blockParts(ctx.chain.block(h)).header}}` };
}

export function headerByHash(ctx: ClientRpcContext, params: Record<string, unknown>): Outcome {
  const hash = hexParam(params.hash, 'hash');
  if (isOutcome(hash)) return hash;
  const h = heightOfHash(ctx, hash.toString('hex').toUpperCase());
  return {
    result: h === undefined ? '{"header":null}' : `{"header":${blockParts(ctx.chain.block(h)).header}}`,
  };
}

export function blockByHash(ctx: ClientRpcContext, params: Record<string, unknown>): Outcome {
  const hash = bytesParam(params.hash, 'hash');
  if (isOutcome(hash)) return hash;
  const h = heightOfHash(ctx, hash.toString('hex').toUpperCase());
  return h === undefined ? { result: EMPTY_BLOCK } : { resultBytes: ctx.chain.block(h).blockBytes };
}

/**
 * The commit for height H: what block H+1 carries as last_commit (same signature and time), so it
 * is built without generating H+1; canonical once H+1 exists, else the node's "seen" commit.
 */
export function commit(ctx: ClientRpcContext, params: Record<string, unknown>): Outcome {
  const head = ctx.head();
  const h = resolveHeight(ctx, params.height, head);
  if (typeof h !== 'number') return h;
  const parts = blockParts(ctx.chain.block(h));
  const signature = commitSignature(ctx.chainId, ctx.seed, h);
  const commitJson =
    `{"height":"${h}","round":0,"block_id":${parts.blockId},"signatures":[{"block_id_flag":2,` +
    `"validator_address":"${ctx.chain.validator.address}","timestamp":"${ctx.chain.timeOf(h + 1)}",` +
    `"signature":"${signature}"}]}`;
  return {
    result: `{"signed_header":{"header":${parts.header},"commit":${commitJson}},"canonical":${h < head}}`,
  };
}

/** FinalizeBlock events of a height, cut from its cached /block_results text. */
function blockEvents(b: GeneratedBlock): SimEvent[] {
  const json = b.resultsJson;
  const start = json.lastIndexOf(',"finalize_block_events":') + 25;
  const end = json.lastIndexOf(',"validator_updates":');
  return JSON.parse(json.slice(start, end)) as SimEvent[];
}

export function blockSearch(ctx: ClientRpcContext, params: Record<string, unknown>): Outcome {
  let conditions: Condition[];
  try {
    conditions = parseQuery(stringParam(params.query));
  } catch (err) {
    if (err instanceof QueryError) return internalError(err.message);
    throw err;
  }
  const order = stringParam(params.order_by);
  if (order !== '' && order !== 'asc' && order !== 'desc')
    return internalError('expected order_by to be either `asc` or `desc` or empty');
  const paging = pagingParams(params);
  if (isOutcome(paging)) return paging;
  const range = heightRange(conditions, 'block.height', ctx.base(), ctx.head());
  let total: number;
  let at: (i: number) => number;
  if (range.rest.length === 0) {
    // Only height conditions: every block in the range matches, nothing to generate.
    total = Math.max(0, range.hi - range.lo + 1);
    at = (i) => range.lo + i;
  } else {
    if (range.hi - range.lo + 1 > MAX_SEARCH_SCAN) return scanLimit('block.height');
    const heights: number[] = [];
    for (let h = range.lo; h <= range.hi; h++) {
      const events = blockEvents(ctx.chain.block(h));
      if (range.rest.every((c) => eventsMatch(c, events))) heights.push(h);
    }
    total = heights.length;
    at = (i) => heights[i]!;
  }
  const slice = pageSlice(paging, total);
  if (isOutcome(slice)) return slice;
  const blocks: string[] = [];
  for (let k = slice.skip; k < slice.skip + slice.size; k++) {
    // block_search orders newest first unless asked otherwise.
    blocks.push(ctx.chain.block(at(order === 'asc' ? k : total - 1 - k)).blockBytes.toString('utf8'));
  }
  return { result: `{"blocks":[${blocks.join(',')}],"total_count":"${total}"}` };
}

/** The documented bound on a search that must generate blocks to test event conditions. */
export function scanLimit(heightTag: string): Outcome {
  return internalError(
    `the simulator searches events over at most ${MAX_SEARCH_SCAN} heights per query; ` +
      `narrow it with ${heightTag}>=A AND ${heightTag}<=B`,
  );
}
