import type { HeightSpan } from './endpoint-routing.js';

/**
 * How a node says it no longer holds the heights a request reads (docs/node-data.md §5.2): each
 * surface has its own words, and only CometBFT names the lowest height it keeps. A refusal tells
 * the pool the lowest height the endpoint may hold; the request then goes to another endpoint.
 */
export interface Refusal {
  /** The endpoint holds nothing below this height (above the span's start). */
  lowest: number;
  /** The node named its lowest height (CometBFT); else `lowest` is only "above what it refused". */
  exact: boolean;
}

/** What a refusal check reads: the answer, the heights asked, and the endpoint's head if known. */
export type RefusalCheck = (
  answer: { status: number; text: string },
  span: HeightSpan,
  endpointHead: number | undefined,
) => Refusal | undefined;

/** CometBFT, and the REST gateway's block routes that ask it: `height X is not available, lowest height is Y`. */
const COMET_RE = /is not available, lowest height is (\d+)/;
/**
 * Cosmos SDK state at a height it pruned (REST with `x-cosmos-block-height`; minievm's `eth_call`
 * and traces): `failed to load state at height X; version mismatch on immutable IAVL tree; version
 * does not exist. Version has either been pruned, or is for a future block height (latest height: L)`.
 * X at or below L is pruned; above L it is the future, not a refusal.
 */
const STATE_RE = /failed to load state at height (\d+);[^]*?\(latest height: (\d+)\)/;
/** geth's words for state or history it no longer keeps. */
const GETH_RE =
  /missing trie node|historical state [0-9a-fx]+ is not available|required historical state unavailable|pruned history unavailable/i;
/** geth's and minievm's answer for a block they do not have: pruned only at or below their head. */
const HEADER_RE = /header not found|block #?\d+ not found/i;

const above = (span: HeightSpan, height: number): Refusal => ({
  lowest: Math.max(span.from, height) + 1,
  exact: false,
});

/** The refusals any surface's answer may carry (CometBFT's, the SDK's, geth's), else undefined. */
export const refusalOf: RefusalCheck = (answer, span, endpointHead) => {
  const comet = COMET_RE.exec(answer.text);
  if (comet) {
    const lowest = Number(comet[1]);
    return lowest > span.from ? { lowest, exact: true } : undefined;
  }
  const state = STATE_RE.exec(answer.text);
  if (state) return Number(state[1]) <= Number(state[2]) ? above(span, Number(state[1])) : undefined;
  if (GETH_RE.test(answer.text)) return above(span, span.from);
  if (HEADER_RE.test(answer.text) && endpointHead !== undefined && span.from <= endpointHead)
    return above(span, span.from);
  return undefined;
};

/**
 * A JSON-RPC batch whose calls each read one height (`heights[i]` for call id i): a call answered
 * `null` for a height at or below the endpoint's head is a block it no longer keeps (geth's answer
 * for a pruned block); so is `[]` for a height `holdsTxs` says has EVM txs (minievm's
 * `eth_getBlockReceipts` of a block its pruned indexer dropped). Errors are read by `refusalOf`.
 */
export function nullBlockRefusal(
  heights: readonly number[],
  holdsTxs?: (height: number) => boolean,
): RefusalCheck {
  return (answer, span, endpointHead) => {
    const said = refusalOf(answer, span, endpointHead);
    if (said || endpointHead === undefined) return said;
    let replies: unknown;
    try {
      replies = JSON.parse(answer.text);
    } catch {
      return undefined;
    }
    if (!Array.isArray(replies)) return undefined;
    let refused: number | undefined;
    for (const r of replies as { id?: unknown; result?: unknown; error?: unknown }[]) {
      const h = typeof r.id === 'number' ? heights[r.id] : undefined;
      if (h === undefined || r.error !== undefined || h > endpointHead) continue;
      const emptied = Array.isArray(r.result) && r.result.length === 0 && holdsTxs?.(h) === true;
      if (r.result !== null && !emptied) continue;
      refused = Math.max(refused ?? 0, h);
    }
    return refused === undefined ? undefined : above(span, refused);
  };
}
