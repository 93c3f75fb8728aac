import { toBech32 } from '../../../shared/address.js';
import { createBankLedger } from '../common/bank-ledger.js';
import { shortHex } from './address.js';
import { createMoveAddressBook } from './model.js';
import {
  moveCollectionAddress,
  moveIbcClassName,
  moveIbcCollectionAddress,
  type MoveNftContext,
  moveHolderAddress,
} from './nft.js';
import { createMoveRest } from './rest.js';
import { createMoveModel } from './workload.js';
import { nftPlanOf } from '../common/context.js';
import { collectionCreator, collectionName } from '../../chain/nft-lifecycle.js';
import type { VmDeps, VmSetup } from '../setup.js';
import { bankBalanceHooks } from '../setup.js';
import { pad32 } from './address.js';

const hex32 = (b: Uint8Array): string => '0x' + Buffer.from(pad32(b)).toString('hex');

export function createMoveVm(deps: VmDeps): VmSetup {
  const { ctx } = deps;
  const book = createMoveAddressBook();
  const nft: MoveNftContext = {
    plan: nftPlanOf(ctx, true),
    accounts: ctx.accounts,
  };
  const account = (i: number): string => ctx.accounts[i]!.bech32;
  const model = createMoveModel(ctx, book, nft);
  const denoms = [ctx.feeDenom, ...ctx.denoms];
  const denomByMetadata = new Map(denoms.map((d) => [shortHex(book.metadata(d)), d]));
  const ledger = createBankLedger({
    vm: 'move',
    model,
    accounts: ctx.accounts,
    denoms,
    prefix: ctx.prefix,
    rewardsHex: '0x' + Buffer.from(deps.rewards).toString('hex'),
    denomOfMetadata: (metadata) => denomByMetadata.get(metadata),
  });
  return {
    ...bankBalanceHooks(ledger, deps),
    model,
    naming: {
      plan: nft.plan,
      collectionAddr: (c) => hex32(moveCollectionAddress(nft, c)),
      collectionName,
      creator: (c) => account(collectionCreator(nft.plan, c)),
      ibcCollectionAddr: hex32(moveIbcCollectionAddress()),
      ibcName: moveIbcClassName(),
      ibcCreator: toBech32(pad20(Uint8Array.of(1)), ctx.prefix),
      holder: (h) => toBech32(moveHolderAddress(nft, h), ctx.prefix),
    },
    rest: createMoveRest({
      nft,
      book,
      accounts: ctx.accounts,
      denoms: [ctx.feeDenom, ...ctx.denoms],
      head: deps.head,
      ...(deps.state.base ? { base: deps.state.base } : {}),
      lastTxAt: deps.lastTxAt,
    }),
  };
}

function pad20(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(20);
  out.set(b, 20 - b.length);
  return out;
}
