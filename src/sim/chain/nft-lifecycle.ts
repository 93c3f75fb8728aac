import { InputError } from '../../shared/errors.js';
import { pick } from './prng.js';

/**
 * Closed-form NFT lifecycles shared by the three VMs. By default every fifth tx (g mod 5 = 4) is
 * an NFT operation; `--nft-share` makes the last `per` txs of every group of `every` NFT
 * operations instead (NftShare). The n-th operation is:
 *   n < COLLECTIONS            create collection n (its signer is the creator);
 *   m = n - COLLECTIONS, phase = m mod 5, slot = ⌊m/5⌋ - phase·LAG for phases 1..3:
 *     0 mint slot ⌊m/5⌋          1 transfer           2 URI mutation (Move, every 4th slot)
 *     3 burn (every 3rd slot)    4 IBC receipt of token ⌊m/5⌋ into the IBC collection.
 * Each holder is the signer of the next operation on the token, so every transfer and burn is
 * signed by the current owner while signers stay `g mod K` (closed-form sequences). Slots
 * t ≡ 1 (mod 3), t ≥ REMINT re-mint the token id of slot t - REMINT, burnt before.
 */
export const COLLECTIONS = 3;
const PHASES = 5;
const LAG = 6;
export const REMINT = 4 * LAG + 1;
const NFT_STREAM = 60;

export type NftOp =
  | { kind: 'create-collection'; collection: number }
  | { kind: 'mint'; slot: number; collection: number; tokenId: string; to: Holder; uri: string }
  | {
      kind: 'transfer';
      slot: number;
      collection: number;
      tokenId: string;
      from: Holder;
      to: Holder;
      send: boolean;
    }
  | { kind: 'mutate-uri'; slot: number; collection: number; tokenId: string; oldUri: string; newUri: string }
  | { kind: 'burn'; slot: number; collection: number; tokenId: string; from: Holder }
  | { kind: 'ibc-receive'; index: number; tokenId: string; to: Holder; uri: string; first: boolean };

/** A holder is a keyring account index, or ESCROW: the contract a `send` delivers to. */
export type Holder = number;
export const ESCROW: Holder = -1;
/** Phase-3 transfers of even slots are sends (cw721 send_nft / ERC721 safeTransferFrom to a contract). */
const sendsAtEnd = (slot: number): boolean => slot % 2 === 0;

/** `per` NFT operations in every group of `every` txs: the group's last `per` txs. */
export interface NftShare {
  per: number;
  every: number;
}
/** One tx in five (the answers of every existing chain depend on it). */
export const DEFAULT_NFT_SHARE: NftShare = { per: 1, every: 5 };
const SHARE_STEPS = 20;

/** `--nft-share S`: S a multiple of 1/20 in (0, 1], kept as a reduced fraction (0.2 → 1 in 5). */
export function parseNftShare(share: number): NftShare {
  const steps = Math.round(share * SHARE_STEPS);
  if (
    !Number.isFinite(share) ||
    steps < 1 ||
    steps > SHARE_STEPS ||
    Math.abs(steps - share * SHARE_STEPS) > 1e-9
  )
    throw new InputError(
      'invalid_nft_share',
      `--nft-share must be a multiple of 0.05 in (0, 1], got ${share}`,
    );
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const d = gcd(steps, SHARE_STEPS);
  return { per: steps / d, every: SHARE_STEPS / d };
}

export interface NftPlanContext {
  seed: number;
  accounts: number;
  /** Whether phase 2 may mutate the URI (Move) instead of transferring. */
  uriMutation: boolean;
  /** Default DEFAULT_NFT_SHARE. */
  share?: NftShare;
}

type ShareOf = Pick<NftPlanContext, 'share'>;

export function opIndexOf(ctx: ShareOf, g: number): number | undefined {
  const { per, every } = ctx.share ?? DEFAULT_NFT_SHARE;
  const pos = (g % every) - (every - per);
  return pos < 0 ? undefined : Math.floor(g / every) * per + pos;
}
const gOfOp = (ctx: ShareOf, n: number): number => {
  const { per, every } = ctx.share ?? DEFAULT_NFT_SHARE;
  return Math.floor(n / per) * every + (every - per) + (n % per);
};
export const gOfSlotPhase = (ctx: ShareOf, slot: number, phase: number): number =>
  gOfOp(ctx, COLLECTIONS + PHASES * (slot + phase * LAG) + phase);

const signerOfG = (ctx: NftPlanContext, g: number): Holder => g % ctx.accounts;
export const isBurnt = (slot: number): boolean => slot % 3 === 0;
const mutates = (ctx: NftPlanContext, slot: number): boolean => ctx.uriMutation && slot % 4 === 2;
export const rootOf = (slot: number): number => (slot % 3 === 1 && slot >= REMINT ? slot - REMINT : slot);
export const collectionOf = (slot: number): number => rootOf(slot) % COLLECTIONS;
export const tokenIdOf = (slot: number): string => String(rootOf(slot) + 1);
export const mintUri = (slot: number): string =>
  `ipfs://bafysim${collectionOf(slot)}/${tokenIdOf(slot)}.json?mint=${slot}`;
export const mutatedUri = (slot: number): string => `${mintUri(slot)}&v=2`;
export const collectionName = (c: number): string => `Sim Collection ${c}`;
export const collectionCreator = (ctx: NftPlanContext, c: number): Holder => signerOfG(ctx, gOfOp(ctx, c));

/** Holder after each phase; the last one receives from a hashed pick. */
export function holdersOf(
  ctx: NftPlanContext,
  slot: number,
): { afterMint: Holder; afterT1: Holder; afterT2: Holder; final: Holder } {
  const s = (p: number): Holder => signerOfG(ctx, gOfSlotPhase(ctx, slot, p));
  const afterT1 = mutates(ctx, slot) ? s(3) : s(2);
  const afterT2 = mutates(ctx, slot) ? afterT1 : s(3);
  const final = sendsAtEnd(slot) ? ESCROW : pick(ctx.seed, NFT_STREAM, slot, ctx.accounts);
  return { afterMint: s(1), afterT1, afterT2, final };
}

export function nftOpAt(ctx: NftPlanContext, g: number): NftOp | undefined {
  const n = opIndexOf(ctx, g);
  if (n === undefined) return undefined;
  if (n < COLLECTIONS) return { kind: 'create-collection', collection: n };
  const m = n - COLLECTIONS;
  const phase = m % PHASES;
  const base = Math.floor(m / PHASES);
  if (phase === 4) {
    const to = pick(ctx.seed, NFT_STREAM + 1, base, ctx.accounts);
    return {
      kind: 'ibc-receive',
      index: base,
      tokenId: String(base + 1),
      to,
      uri: `ipfs://bafyl1/${base + 1}`,
      first: base === 0,
    };
  }
  const slot = base - phase * LAG;
  if (slot < 0) return undefined;
  const collection = collectionOf(slot);
  const tokenId = tokenIdOf(slot);
  const h = holdersOf(ctx, slot);
  switch (phase) {
    case 0:
      return { kind: 'mint', slot, collection, tokenId, to: h.afterMint, uri: mintUri(slot) };
    case 1:
      return {
        kind: 'transfer',
        slot,
        collection,
        tokenId,
        from: h.afterMint,
        to: h.afterT1,
        send: slot % 2 === 1,
      };
    case 2:
      if (mutates(ctx, slot))
        return {
          kind: 'mutate-uri',
          slot,
          collection,
          tokenId,
          oldUri: mintUri(slot),
          newUri: mutatedUri(slot),
        };
      return { kind: 'transfer', slot, collection, tokenId, from: h.afterT1, to: h.afterT2, send: false };
    default:
      if (isBurnt(slot)) return { kind: 'burn', slot, collection, tokenId, from: h.afterT2 };
      return {
        kind: 'transfer',
        slot,
        collection,
        tokenId,
        from: h.afterT2,
        to: h.final,
        send: slot % 2 === 0,
      };
  }
}

export interface TokenState {
  slot: number;
  collection: number;
  tokenId: string;
  owner: Holder;
  uri: string;
}

/** Live tokens after global tx `lastG` (inclusive), regular collections only. */
export function tokensAfter(ctx: NftPlanContext, lastG: number): TokenState[] {
  const out: TokenState[] = [];
  for (let slot = 0; gOfSlotPhase(ctx, slot, 0) <= lastG; slot++) {
    const h = holdersOf(ctx, slot);
    const done = (p: number): boolean => gOfSlotPhase(ctx, slot, p) <= lastG;
    if (done(3) && isBurnt(slot)) continue;
    const owner = done(3) ? h.final : done(2) ? h.afterT2 : done(1) ? h.afterT1 : h.afterMint;
    const uri = done(2) && mutates(ctx, slot) ? mutatedUri(slot) : mintUri(slot);
    out.push({ slot, collection: collectionOf(slot), tokenId: tokenIdOf(slot), owner, uri });
  }
  return out;
}

/** IBC-received tokens after `lastG` (token i+1, held by its receiver). */
export function ibcTokensAfter(
  ctx: NftPlanContext,
  lastG: number,
): Array<{ tokenId: string; owner: Holder; uri: string }> {
  const out = [];
  for (let i = 0; gOfOp(ctx, COLLECTIONS + PHASES * i + 4) <= lastG; i++) {
    out.push({
      tokenId: String(i + 1),
      owner: pick(ctx.seed, NFT_STREAM + 1, i, ctx.accounts),
      uri: `ipfs://bafyl1/${i + 1}`,
    });
  }
  return out;
}

export const collectionCreatedBy = (ctx: ShareOf, c: number, lastG: number): boolean =>
  gOfOp(ctx, c) <= lastG;
/** The global tx index of the first IBC receipt (it creates the IBC collection). */
export const firstIbcOpG = (ctx: ShareOf): number => gOfOp(ctx, COLLECTIONS + 4);
export const ibcCollectionCreatedBy = (ctx: ShareOf, lastG: number): boolean => firstIbcOpG(ctx) <= lastG;

/** The L1 collection an IBC class comes from. */
export const IBC = {
  l1Name: 'Sim L1 Collection',
  srcChannel: 'channel-0',
  dstChannel: 'channel-7',
  classIdOnL1: 'move/5ab1c0de5ab1c0de5ab1c0de5ab1c0de5ab1c0de5ab1c0de5ab1c0de5ab1c0de',
};
