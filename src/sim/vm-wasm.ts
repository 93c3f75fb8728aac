import type { VmSetup } from './plan.js';
import type { VmDeps } from './vm-move.js';
import { nftPlanOf } from './move-workload.js';
import { collectionName, type NftPlanContext } from './nft-lifecycle.js';
import { accountHex } from './vm-naming.js';
import { createWasmContracts, createWasmModel, wasmCollectionCreator } from './wasm-model.js';
import { createWasmRest } from './wasm-rest.js';

export function createWasmVm(deps: VmDeps): VmSetup {
  const { ctx } = deps;
  const plan: NftPlanContext = nftPlanOf(ctx, false);
  const k = createWasmContracts(ctx);
  const creatorOf = (c: number): string => wasmCollectionCreator(ctx, plan, c);
  return {
    model: createWasmModel(ctx, k, plan),
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
