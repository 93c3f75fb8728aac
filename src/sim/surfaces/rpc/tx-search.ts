import { merkleRoot, type GeneratedBlock } from '../../chain/blocks.js';
import type { Outcome } from '../jsonrpc.js';
import { sha256 } from '../../chain/keys.js';
import type { ClientRpcContext } from './client-context.js';
import { MAX_SEARCH_SCAN, scanLimit } from './headers.js';
import {
  boolParam,
  bytesParam,
  internalError,
  isOutcome,
  pageSlice,
  pagingParams,
  stringParam,
} from './params.js';
import { eventsMatch, heightRange, parseQuery, QueryError, type Condition } from './query.js';

/**
 * `tx` and `tx_search` (rpc/core/tx.go). Without an index, a search is answered from the
 * closed-form chain: `tx.hash` through the simulator's tx lookup, a pure `tx.height` range by
 * arithmetic on the schedule (no block generated beyond the page), and event conditions by
 * generating at most MAX_SEARCH_SCAN heights.
 */
const MAX_QUERY_LENGTH = 512;

/** RFC-6962 audit path of leaf `index` (merkle.ProofsFromByteSlices): innermost sibling first. */
function aunts(leaves: Buffer[], index: number): Buffer[] {
  if (leaves.length <= 1) return [];
  const split = 2 ** Math.floor(Math.log2(leaves.length - 1));
  return index < split
    ? [...aunts(leaves.slice(0, split), index), merkleRoot(leaves.slice(split))]
    : [...aunts(leaves.slice(split), index - split), merkleRoot(leaves.slice(0, split))];
}

/** types.TxProof of tx `index` in its block (leaves are the tx hashes, as data_hash). */
function txProof(b: GeneratedBlock, index: number): string {
  const leaves = b.txs.map((t) => Buffer.from(t.hash, 'hex'));
  const leafHash = sha256(Buffer.concat([Buffer.from([0]), leaves[index]!])).toString('base64');
  const path = aunts(leaves, index).map((a) => `"${a.toString('base64')}"`);
  return (
    `{"root_hash":"${b.header.dataHash}","data":"${b.txs[index]!.base64}","proof":{"total":"${leaves.length}",` +
    `"index":"${index}","leaf_hash":"${leafHash}"${path.length > 0 ? `,"aunts":[${path.join(',')}]` : ''}}}`
  );
}

/** ResultTx: hash (upper hex), height (string), index (number), tx_result, tx (base64), proof if asked. */
export function txJson(b: GeneratedBlock, index: number, prove: boolean): string {
  const tx = b.txs[index]!;
  return (
    `{"hash":"${tx.hash}","height":"${b.height}","index":${index},"tx_result":${tx.resultBytes.toString('utf8')},` +
    `"tx":"${tx.base64}"${prove ? `,"proof":${txProof(b, index)}` : ''}}`
  );
}

export function txByHash(ctx: ClientRpcContext, params: Record<string, unknown>): Outcome {
  const hash = bytesParam(params.hash, 'hash');
  if (isOutcome(hash)) return hash;
  const prove = boolParam(params.prove, 'prove');
  if (isOutcome(prove)) return prove;
  const hex = hash.toString('hex').toUpperCase();
  const found = hex.length === 64 ? ctx.findTx(hex) : undefined;
  if (!found || found.block.height < ctx.base()) return internalError(`tx (${hex}) not found`);
  return { result: txJson(found.block, found.block.txs.indexOf(found.tx), prove) };
}

/** A matched tx: its height and index in the block. */
type Hit = [height: number, index: number];

export function txSearch(ctx: ClientRpcContext, params: Record<string, unknown>): Outcome {
  const query = stringParam(params.query);
  if (query.length > MAX_QUERY_LENGTH) return internalError('maximum query length exceeded');
  const order = stringParam(params.order_by);
  if (order !== '' && order !== 'asc' && order !== 'desc')
    return internalError('expected order_by to be either `asc` or `desc` or empty');
  let conditions: Condition[];
  try {
    conditions = parseQuery(query);
  } catch (err) {
    if (err instanceof QueryError) return internalError(err.message);
    throw err;
  }
  const prove = boolParam(params.prove, 'prove');
  if (isOutcome(prove)) return prove;
  const paging = pagingParams(params);
  if (isOutcome(paging)) return paging;
  const range = heightRange(conditions, 'tx.height', ctx.base(), ctx.head());
  const hashes = range.rest.filter((c) => c.tag === 'tx.hash' && c.op === '=');
  const rest = range.rest.filter((c) => !hashes.includes(c));
  let hits: Hit[] | { total: number; at: (i: number) => Hit };
  if (hashes.length > 0) hits = byHash(ctx, hashes, range, rest);
  else if (rest.length === 0 && ctx.firstTx) hits = byHeights(ctx.firstTx, range.lo, range.hi);
  else if (range.hi - range.lo + 1 > MAX_SEARCH_SCAN) return scanLimit('tx.height');
  else hits = scan(ctx, range.lo, range.hi, rest);
  const list = hits;
  const total = Array.isArray(list) ? list.length : list.total;
  const at = (i: number): Hit => (Array.isArray(list) ? list[i]! : list.at(i));
  const slice = pageSlice(paging, total);
  if (isOutcome(slice)) return slice;
  const txs: string[] = [];
  for (let k = slice.skip; k < slice.skip + slice.size; k++) {
    const [h, i] = at(order === 'desc' ? total - 1 - k : k);
    txs.push(txJson(ctx.chain.block(h), i, prove));
  }
  return { result: `{"txs":[${txs.join(',')}],"total_count":"${total}"}` };
}

function byHash(
  ctx: ClientRpcContext,
  hashes: Condition[],
  range: { lo: number; hi: number },
  rest: Condition[],
): Hit[] {
  const wanted = new Set(hashes.map((c) => (c.arg?.text ?? '').toUpperCase()));
  if (wanted.size !== 1) return [];
  const found = ctx.findTx([...wanted][0]!);
  if (!found) return [];
  const h = found.block.height;
  if (h < range.lo || h > range.hi) return [];
  const index = found.block.txs.indexOf(found.tx);
  return rest.every((c) => eventsMatch(c, found.tx.events)) ? [[h, index]] : [];
}

/** Every tx of heights lo..hi, located by arithmetic on the schedule's prefix sums. */
function byHeights(
  firstTx: (h: number) => number,
  lo: number,
  hi: number,
): { total: number; at: (i: number) => Hit } {
  if (lo > hi) return { total: 0, at: () => [0, 0] };
  const start = firstTx(lo);
  const total = firstTx(hi + 1) - start;
  return {
    total,
    at(i) {
      const g = start + i;
      // The highest height whose first tx is <= g.
      let a = lo;
      let b = hi;
      while (a < b) {
        const mid = Math.floor((a + b + 1) / 2);
        if (firstTx(mid) <= g) a = mid;
        else b = mid - 1;
      }
      return [a, g - firstTx(a)];
    },
  };
}

function scan(ctx: ClientRpcContext, lo: number, hi: number, rest: Condition[]): Hit[] {
  const hits: Hit[] = [];
  for (let h = lo; h <= hi; h++) {
    const b = ctx.chain.block(h);
    b.txs.forEach((tx, i) => {
      const events = tx.events;
      if (rest.every((c) => c.tag !== 'tx.hash' && eventsMatch(c, events))) hits.push([h, i]);
    });
  }
  return hits;
}
