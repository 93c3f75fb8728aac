import { bankSendMessageEvent, coinTransferEvents } from '../common/bank-events.js';
import { event, type SimEvent } from '../../chain/events.js';
import { sha256, type SimAccount } from '../../chain/keys.js';
import { pad32, shortHex } from './address.js';
import { executeEvent, faMoveEvents, sudoTransferEvents, type MoveAddressBook } from './model.js';
import { bcs, msgExecute, MSG_EXECUTE } from '../../chain/msgs.js';
import type { NftTxParts, PlannedTx, VmModel } from '../../chain/plan.js';
import { pick, Stream } from '../../chain/prng.js';
import type { SimSignMode } from '../../chain/tx-build.js';
import type { Coin } from '../../types.js';
import { toBech32 } from '../../../shared/address.js';
import { bankKindOf, planBankSend, type BankKind } from '../common/bank.js';
import { moveNftParts, type MoveNftContext } from './nft.js';
import { nftOpAt, type NftPlanContext, type NftShare } from '../../chain/nft-lifecycle.js';

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

export function coinsText(coins: Coin[]): string {
  return coins.map((c) => c.amount + c.denom).join(',');
}

export type MoveTxKind = BankKind | 'coin-transfer';

export function moveKindOf(seed: number, g: number): MoveTxKind {
  return bankKindOf(pick(seed, Stream.kind, g, 100)) ?? 'coin-transfer';
}

export function createMoveModel(ctx: ModelContext, book: MoveAddressBook, nftCtx: MoveNftContext): VmModel {
  const bankSendEvents = (from: SimAccount, to: Party, coins: Coin[]): SimEvent[] => {
    const out: SimEvent[] = [bankSendMessageEvent(from.bech32)];
    for (const coin of coins) {
      out.push(
        ...sudoTransferEvents(book, { from: from.address, to: to.address, coin, createsStore: to.fresh }),
      );
    }
    const amount = coinsText(coins);
    out.push(...coinTransferEvents(from.bech32, to.bech32, amount));
    return out;
  };

  return {
    plan(g) {
      const who = signerOf(ctx, g);
      const { signer, sequence, mode } = who;
      const nftOp = nftOpAt(nftCtx.plan, g);
      if (nftOp) return nftTx(ctx, g, who, moveNftParts(nftCtx, nftOp, signer, g));
      const kind = moveKindOf(ctx.seed, g);
      const gas = gasOf(ctx, g, kind === 'coin-transfer' ? 180_000 : 120_000);
      const base = { signer, sequence, signMode: mode, memo: '', ...gas };
      if (kind === 'coin-transfer') {
        const to = recipientOf(ctx, g, signer, 0);
        const coin = { denom: ctx.feeDenom, amount: amountOf(ctx, g, 0) };
        const msg = msgExecute({
          sender: signer.bech32,
          moduleAddress: '0x1',
          moduleName: 'coin',
          functionName: 'transfer',
          typeArgs: [],
          args: [
            bcs.address(pad32(to.address)),
            bcs.address(book.metadata(coin.denom)),
            bcs.u64(BigInt(coin.amount)),
          ],
        });
        const events: SimEvent[] = [
          event('message', [
            ['action', MSG_EXECUTE],
            ['sender', signer.bech32],
            ['module', 'move'],
          ]),
          executeEvent(shortHex(signer.address), '0x1', 'coin', 'transfer'),
          ...faMoveEvents(book, { from: signer.address, to: to.address, coin, createsStore: to.fresh }),
        ];
        return { ...base, msgs: [msg], msgEvents: [events], msgResponseTypes: [MSG_EXECUTE + 'Response'] };
      }
      return planBankSend(ctx, g, kind, { signer, sequence, signMode: mode }, bankSendEvents);
    },
    feeEvents(tx) {
      const from = tx.signer;
      const coin = tx.fee[0]!;
      return sudoTransferEvents(book, {
        from: from.address,
        to: ctx.feeCollector,
        coin,
        createsStore: false,
      });
    },
  };
}
