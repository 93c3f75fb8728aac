import { toBech32 } from '../shared/address.js';
import { createMoveAddressBook } from './move-model.js';
import {
  moveCollectionAddress,
  moveIbcClassName,
  moveIbcCollectionAddress,
  type MoveNftContext,
  moveHolderAddress,
} from './move-nft.js';
import { createMoveRest } from './move-rest.js';
import { createMoveModel, nftPlanOf, type ModelContext } from './move-workload.js';
import { collectionCreator, collectionName } from './nft-lifecycle.js';
import type { VmSetup } from './plan.js';
import type { StateContext } from './rest-state.js';
import { pad32 } from './move-address.js';

export interface VmDeps {
  ctx: ModelContext;
  state: StateContext;
  head(): number;
  lastTxAt(height: number): number;
  /** Where to look for a hash not generated yet (most recent heights first). */
  recentHeights(): number[];
}

const hex32 = (b: Uint8Array): string => '0x' + Buffer.from(pad32(b)).toString('hex');

export function createMoveVm(deps: VmDeps): VmSetup {
  const { ctx } = deps;
  const book = createMoveAddressBook();
  const nft: MoveNftContext = {
    plan: nftPlanOf(ctx, true),
    accounts: ctx.accounts,
  };
  const account = (i: number): string => ctx.accounts[i]!.bech32;
  return {
    model: createMoveModel(ctx, book, nft),
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
      lastTxAt: deps.lastTxAt,
    }),
  };
}

function pad20(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(20);
  out.set(b, 20 - b.length);
  return out;
}
