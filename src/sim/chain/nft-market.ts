import { COLLECTIONS, DEFAULT_NFT_SHARE, tokenAfter, type NftPlanContext } from './nft-lifecycle.js';
import { pick } from './prng.js';

/**
 * Closed-form marketplace offers: txs that name a live NFT without minting, moving, changing or
 * burning it (docs/api.md §0.10 puts them in the token's history on Move). The VM decides which
 * of its txs are offers; this picks the token, uniformly among the regular slots minted before
 * the tx, stepping down past a burnt one. No NFT operation happens at an offer's g, so "live
 * before g" is "live after g".
 */
export interface NftOffer {
  slot: number;
  collection: number;
  tokenId: string;
  /** Offered price in the fee denom's base unit. */
  price: string;
}

const MARKET_STREAM = 70;
/** Slots tried below the picked one when it is burnt (one slot in three is burnt for good). */
const TRIES = 3;

/** The highest slot minted at or before global tx `g`, or -1 (slot s is NFT op COLLECTIONS + 5s). */
function lastMintedSlot(ctx: NftPlanContext, g: number): number {
  const { per, every } = ctx.share ?? DEFAULT_NFT_SHARE;
  const opsUpToG = Math.floor((g + 1) / every) * per + Math.max(0, ((g + 1) % every) - (every - per));
  return Math.floor((opsUpToG - 1 - COLLECTIONS) / 5);
}

/** Whether a tx the VM could make an offer is one (a quarter of them). */
export const isOfferTx = (seed: number, g: number): boolean => pick(seed, MARKET_STREAM + 2, g, 4) === 0;

/** The token an offer at global tx `g` names, or undefined when no regular token is live yet. */
export function nftOfferAt(ctx: NftPlanContext, g: number): NftOffer | undefined {
  const last = lastMintedSlot(ctx, g);
  if (last < 0) return undefined;
  const first = pick(ctx.seed, MARKET_STREAM, g, last + 1);
  for (let slot = first; slot >= 0 && slot > first - TRIES; slot--) {
    const token = tokenAfter(ctx, slot, g);
    if (token) {
      const price = String(1_000 + pick(ctx.seed, MARKET_STREAM + 1, g, 1_000_000));
      return { slot, collection: token.collection, tokenId: token.tokenId, price };
    }
  }
  return undefined;
}
