import { toBech32 } from '../../../shared/address.js';
import { sha256, type SimAccount } from '../../chain/keys.js';
import type { NftPlanContext, NftShare } from '../../chain/nft-lifecycle.js';
import type { NftTxParts, PlannedTx } from '../../chain/plan.js';
import { pick, Stream } from '../../chain/prng.js';
import type { SimSignMode } from '../../chain/tx-build.js';
import type { Coin } from '../../types.js';

/** What every VM model is built from, and the per-tx choices the VMs share (signer, recipient, gas, coins). */
export interface ModelContext {
  seed: number;
  prefix: string;
  accounts: SimAccount[];
  feeDenom: string;
  /** Extra denoms for multi-coin sends (sorted together with feeDenom when rendered). */
  denoms: string[];
  feeCollector: Uint8Array;
  /** Share of txs that are NFT operations (default DEFAULT_NFT_SHARE). */
  nftShare?: NftShare;
}

/** The NFT plan of a chain; `uriMutation` on Move only. */
export const nftPlanOf = (ctx: ModelContext, uriMutation: boolean): NftPlanContext => ({
  seed: ctx.seed,
  accounts: ctx.accounts.length,
  uriMutation,
  ...(ctx.nftShare ? { share: ctx.nftShare } : {}),
});

/** A user address that has never been seen before tx g: its stores do not exist yet. */
export function freshAddress(seed: number, g: number): Uint8Array {
  return new Uint8Array(sha256(`rollup-sim/fresh/${seed}/${g}`).subarray(0, 20));
}

export interface Party {
  address: Uint8Array;
  bech32: string;
  fresh: boolean;
}

export function recipientOf(ctx: ModelContext, g: number, signer: SimAccount, salt: number): Party {
  if (pick(ctx.seed, Stream.recipient + 100 * salt, g, 5) === 0) {
    const address = freshAddress(ctx.seed, g * 8 + salt);
    return { address, bech32: toBech32(address, ctx.prefix), fresh: true };
  }
  const k = ctx.accounts.length;
  const other = ctx.accounts[(signer.index + 1 + pick(ctx.seed, Stream.recipient, g * 8 + salt, k - 1)) % k]!;
  return { address: other.address, bech32: other.bech32, fresh: false };
}

export function signerOf(
  ctx: ModelContext,
  g: number,
): { signer: SimAccount; sequence: number; mode: SimSignMode } {
  const k = ctx.accounts.length;
  const signer = ctx.accounts[g % k]!;
  const mode: SimSignMode =
    signer.keyType === 'secp256k1' || pick(ctx.seed, Stream.signMode, g, 5) < 2 ? 'DIRECT' : 'EIP_191';
  return { signer, sequence: Math.floor(g / k), mode };
}

/** The planned tx of one NFT operation built as parts (Move and Wasm NFT ops, every VM's IBC receive). */
export function nftTx(
  ctx: ModelContext,
  g: number,
  who: ReturnType<typeof signerOf>,
  parts: NftTxParts,
): PlannedTx {
  return {
    signer: who.signer,
    sequence: who.sequence,
    signMode: parts.direct ? 'DIRECT' : who.mode,
    memo: '',
    ...gasOf(ctx, g, parts.gasBase),
    msgs: [parts.msg],
    msgEvents: [parts.events],
    msgResponseTypes: [parts.response],
  };
}

export function gasOf(
  ctx: ModelContext,
  g: number,
  base: number,
): { gasLimit: number; gasUsed: number; fee: Coin[] } {
  const gasLimit = base + pick(ctx.seed, Stream.gas, g, 200) * 1000;
  const gasUsed = Math.floor((gasLimit * (55 + pick(ctx.seed, Stream.gas + 50, g, 40))) / 100);
  return {
    gasLimit,
    gasUsed,
    fee: [{ denom: ctx.feeDenom, amount: String(Math.ceil((gasLimit * 15) / 1000)) }],
  };
}

export function amountOf(ctx: ModelContext, g: number, salt: number): string {
  return String(1 + pick(ctx.seed, Stream.amount + 100 * salt, g, 5_000_000));
}

/** Multi-coin amounts, sorted by denom as sdk.Coins are. */
export function coinsOf(ctx: ModelContext, g: number, salt: number, many: boolean): Coin[] {
  const all = [ctx.feeDenom, ...ctx.denoms].sort();
  const chosen = many ? all : [ctx.feeDenom];
  return chosen.map((denom, i) => ({ denom, amount: amountOf(ctx, g, salt * 4 + i) }));
}
