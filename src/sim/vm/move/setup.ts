import { toBech32 } from '../../../shared/address.js';
import { tryAccountBytes } from '../../../shared/address.js';
import { createBankLedger } from '../common/bank-ledger.js';
import type { Ledger } from '../../chain/ledger.js';
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
import { createMoveModel, nftPlanOf, type ModelContext } from './workload.js';
import { collectionCreator, collectionName } from '../../chain/nft-lifecycle.js';
import type { VmSetup } from '../../chain/plan.js';
import type { StateContext } from '../../surfaces/rest/state.js';
import { pad32 } from './address.js';

export interface VmDeps {
  ctx: ModelContext;
  state: StateContext;
  head(): number;
  lastTxAt(height: number): number;
  /** Where to look for a hash not generated yet (most recent heights first). */
  recentHeights(): number[];
  /** The account fees end at when a block ends. */
  rewards: Uint8Array;
}

/** The bank-balance hooks of a VM whose ledger is keyed by bank denom and 0x hex account. */
export function bankBalanceHooks(
  ledger: Ledger,
  deps: VmDeps,
): Pick<VmSetup, 'balanceOf' | 'denomsOf' | 'holders' | 'accountsAt'> {
  const { prefix } = deps.ctx;
  const hexOf = (address: string) => {
    const bytes = tryAccountBytes(address, prefix);
    return bytes ? '0x' + Buffer.from(bytes).toString('hex') : undefined;
  };
  return {
    balanceOf(address, denom, height) {
      const hex = hexOf(address);
      return hex === undefined ? undefined : ledger.balanceOf(denom, hex, deps.lastTxAt(height)).toString();
    },
    denomsOf(address, height) {
      const hex = hexOf(address);
      return hex === undefined ? [] : ledger.tokensOf(hex, deps.lastTxAt(height));
    },
    accountsAt: (height) => ledger.addresses(deps.lastTxAt(height)),
    holders: (denom, height) =>
      ledger.holders(denom, deps.lastTxAt(height)).map((x) => ({
        account: toBech32(Buffer.from(x.address.slice(2), 'hex'), prefix),
        amount: x.amount.toString(),
      })),
  };
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
      lastTxAt: deps.lastTxAt,
    }),
  };
}

function pad20(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(20);
  out.set(b, 20 - b.length);
  return out;
}
