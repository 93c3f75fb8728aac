import { bankSendMessageEvent, coinTransferEvents } from '../common/bank-events.js';
import { event, type SimEvent } from '../../chain/events.js';
import type { SimAccount } from '../../chain/keys.js';
import { pad32, shortHex } from './address.js';
import { executeEvent, faMoveEvents, sudoTransferEvents, type MoveAddressBook } from './model.js';
import { bcs, msgExecute, MSG_EXECUTE } from '../../chain/msgs.js';
import type { PlannedTx, VmModel } from '../../chain/plan.js';
import { pick, Stream } from '../../chain/prng.js';
import { coinsText } from '../../chain/tx-build.js';
import type { Coin } from '../../types.js';
import { bankKindOf, planBankSend, type BankKind } from '../common/bank.js';
import {
  amountOf,
  gasOf,
  nftTx,
  recipientOf,
  signerOf,
  type ModelContext,
  type Party,
} from '../common/context.js';
import {
  moveCollectionAddress,
  moveNftAddress,
  moveNftParts,
  moveOfferParts,
  type MoveNftContext,
} from './nft.js';
import { nftOpAt } from '../../chain/nft-lifecycle.js';
import { isOfferTx, nftOfferAt, type NftOffer } from '../../chain/nft-market.js';

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

  const offerTx = (g: number, who: ReturnType<typeof signerOf>, offer: NftOffer): PlannedTx => {
    const planned = nftTx(ctx, g, who, moveOfferParts(nftCtx, offer, who.signer));
    const hex = (b: Uint8Array): string => '0x' + Buffer.from(pad32(b)).toString('hex');
    planned.nftMentions = [
      {
        collectionAddr: hex(moveCollectionAddress(nftCtx, offer.collection)),
        tokenId: offer.tokenId,
        objectAddr: hex(moveNftAddress(nftCtx, offer.collection, offer.tokenId)),
      },
    ];
    return planned;
  };

  return {
    plan(g) {
      const who = signerOf(ctx, g);
      const { signer, sequence, mode } = who;
      const nftOp = nftOpAt(nftCtx.plan, g);
      if (nftOp) return nftTx(ctx, g, who, moveNftParts(nftCtx, nftOp, signer, g));
      const kind = moveKindOf(ctx.seed, g);
      const offer =
        kind === 'coin-transfer' && isOfferTx(ctx.seed, g) ? nftOfferAt(nftCtx.plan, g) : undefined;
      if (offer) return offerTx(g, who, offer);
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
