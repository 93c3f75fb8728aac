import { toBech32, tryAccountBytes } from '../../../shared/address.js';
import type { Chain, GeneratedBlock } from '../../chain/blocks.js';
import { evmChainId } from './abi.js';
import type { EvmContracts } from './contracts.js';
import { fakeEthTxHash } from './ethtx.js';
import { createEvmLedger } from './ledger.js';
import { createEvmModel } from './model.js';
import { evmHolder } from './calls.js';
import { createEvmRest } from './rest.js';
import { createEvmRpc, type EvmRpcContext } from '../../surfaces/evm-rpc/methods.js';
import {
  collectionCreator,
  collectionName,
  firstIbcOpG,
  type NftPlanContext,
} from '../../chain/nft-lifecycle.js';
import { nftPlanOf } from '../common/context.js';
import type { VmSetup } from '../setup.js';
import type { VmDeps } from '../setup.js';
import type { InternalTxTruth } from '../../types.js';
import type { EvmFrame } from './types.js';

export interface EvmVmDeps extends VmDeps {
  chainId: string;
  contracts: EvmContracts;
  fastSignatures: boolean;
  feeCollectorHex: string;
  chain(): Chain;
  base(): number;
}

export function createEvmVm(deps: EvmVmDeps): VmSetup {
  const { ctx } = deps;
  const plan: NftPlanContext = nftPlanOf(ctx, false);
  const k = deps.contracts;
  const chainId = evmChainId(deps.chainId);
  const model = createEvmModel({
    model: ctx,
    contracts: k,
    plan,
    chainId,
    fastSignatures: deps.fastSignatures,
    feeCollectorHex: deps.feeCollectorHex,
  });
  const ledger = createEvmLedger({
    contracts: k,
    accountsHex: ctx.accounts.map((a) => a.hex),
    feeCollectorHex: deps.feeCollectorHex,
    plan: (g) => model.plan(g),
    evmData: (tx) => model.evmData(tx),
  });
  const ethIndex = new Map<string, number>();
  const cosmosIndex = new Map<string, number>();
  const onBlock = (b: GeneratedBlock): void => {
    if (ethIndex.size > 500_000) ethIndex.clear();
    if (cosmosIndex.size > 500_000) cosmosIndex.clear();
    for (const t of b.txs) {
      ethIndex.set(t.plan?.evmHash ?? fakeEthTxHash(t.hash), b.height);
      cosmosIndex.set(t.hash, b.height);
    }
  };
  const holderHex = (h: number): string => evmHolder(k, ctx.accounts, h);
  const rpcCtx: EvmRpcContext = {
    get chain() {
      return deps.chain();
    },
    chainId,
    contracts: k,
    plan,
    ledger,
    evmData: (tx) => model.evmData(tx),
    holderHex,
    head: deps.head,
    base: deps.base,
    lastTxAt: deps.lastTxAt,
    findCosmos: (hash) => cosmosIndex.get(hash),
    recentHeights: deps.recentHeights,
    findEth(hash) {
      const known = ethIndex.get(hash);
      const heights = known !== undefined ? [known] : [];
      if (known === undefined) heights.push(...deps.recentHeights());
      for (const h of heights) {
        const block = deps.chain().block(h);
        const index = block.txs.findIndex((t) => (t.plan?.evmHash ?? fakeEthTxHash(t.hash)) === hash);
        if (index >= 0) return { block, index };
      }
      return undefined;
    },
  };
  const bech = (hex: string): string => toBech32(Buffer.from(hex.slice(2), 'hex'), ctx.prefix);
  return {
    model,
    onBlock,
    naming: {
      plan,
      collectionAddr: (c) => k.collection(c),
      collectionName,
      creator: (c) => ctx.accounts[collectionCreator(plan, c)]!.bech32,
      ibcCollectionAddr: k.ibcCollection,
      ibcName: k.ibcName,
      // The first IBC receipt's relayer deploys the IBC ERC721.
      ibcCreator: ctx.accounts[firstIbcOpG(plan) % ctx.accounts.length]!.bech32,
      holder: (h) => bech(holderHex(h)),
    },
    rest: createEvmRest(rpcCtx),
    jsonRpc: createEvmRpc(rpcCtx),
    balanceOf(address, denom, height) {
      const token = k.tokenOf(denom);
      const bytes = tryAccountBytes(address, ctx.prefix);
      if (!token || !bytes || bytes.length !== 20) return undefined;
      return ledger
        .balanceOf(token, '0x' + Buffer.from(bytes).toString('hex'), deps.lastTxAt(height))
        .toString();
    },
    accountsAt: (height) => ledger.addresses(deps.lastTxAt(height)),
    denomsOf(address, height) {
      const bytes = tryAccountBytes(address, ctx.prefix);
      if (!bytes || bytes.length !== 20) return [];
      return ledger
        .tokensOf('0x' + Buffer.from(bytes).toString('hex'), deps.lastTxAt(height))
        .flatMap((token) => k.denomOf(token) ?? []);
    },
    holders(denom, atHeight) {
      const token = k.tokenOf(denom);
      if (!token) return [];
      return ledger
        .holders(token, deps.lastTxAt(atHeight))
        .map((x) => ({ account: bech(x.address), amount: x.amount.toString() }));
    },
    internalTxs(evmTxHash) {
      const found = rpcCtx.findEth(evmTxHash.toLowerCase());
      const plan = found?.block.txs[found.index]!.plan;
      const data = plan ? model.evmData(plan) : undefined;
      return data?.trace ? flattenCalls(evmTxHash.toLowerCase(), data.trace) : [];
    },
  };
}

/**
 * Every frame in depth-first pre-order as the indexer stores it: the top frame is index 0 with
 * parent -1 and no recorded output; each child follows its previous sibling's subtree.
 */
export function flattenCalls(txHash: string, root: EvmFrame): InternalTxTruth[] {
  const out: InternalTxTruth[] = [];
  const walk = (f: EvmFrame, parentIndex: number): void => {
    const index = out.length;
    out.push({
      txHash,
      index,
      parentIndex,
      type: f.type,
      from: f.from,
      to: f.to,
      value: f.value,
      input: f.input,
      output: index === 0 ? '0x' : (f.output ?? '0x'),
      gas: f.gas,
      gasUsed: f.gasUsed,
    });
    for (const child of f.calls ?? []) walk(child, index);
  };
  walk(root, -1);
  return out;
}
