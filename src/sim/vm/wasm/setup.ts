import type { VmSetup } from '../setup.js';
import { createBankLedger } from '../common/bank-ledger.js';
import { bankBalanceHooks, type VmDeps } from '../setup.js';
import { nftPlanOf } from '../common/context.js';
import { collectionName, type NftPlanContext } from '../../chain/nft-lifecycle.js';
import { accountHex } from '../common/naming.js';
import { createWasmContracts, createWasmModel, wasmCollectionCreator } from './model.js';
import { createWasmRest } from './rest.js';

export function createWasmVm(deps: VmDeps): VmSetup {
  const { ctx } = deps;
  const plan: NftPlanContext = nftPlanOf(ctx, false);
  const k = createWasmContracts(ctx);
  const creatorOf = (c: number): string => wasmCollectionCreator(ctx, plan, c);
  const model = createWasmModel(ctx, k, plan);
  const ledger = createBankLedger({
    vm: 'wasm',
    model,
    accounts: ctx.accounts,
    denoms: [ctx.feeDenom, ...ctx.denoms],
    prefix: ctx.prefix,
    rewardsHex: '0x' + Buffer.from(deps.rewards).toString('hex'),
  });
  return {
    ...bankBalanceHooks(ledger, deps),
    model,
    naming: {
      plan,
      collectionAddr: (c) => accountHex(k.cw721(c), ctx.prefix),
      collectionName,
      creator: creatorOf,
      ibcCollectionAddr: accountHex(k.ibcCw721, ctx.prefix),
      ibcName: k.ibcClassName,
      ibcCreator: k.ics721,
      holder: k.holder,
    },
    rest: createWasmRest({ contracts: k, plan, state: deps.state, creatorOf, lastTxAt: deps.lastTxAt }),
  };
}
