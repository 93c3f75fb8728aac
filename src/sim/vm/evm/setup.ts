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
  /** Counts a JSON-RPC call refused for a height below the lowest. */
  refused?(): void;
}

/** Heights of the txs generated so far, by Ethereum and by Cosmos hash (recent blocks searched else). */
function createTxIndexes(deps: EvmVmDeps) {
  const ethIndex = new Map<string, number>();
  const cosmosIndex = new Map<string, number>();
  return {
    onBlock(b: GeneratedBlock): void {
      if (ethIndex.size > 500_000) ethIndex.clear();
      if (cosmosIndex.size > 500_000) cosmosIndex.clear();
      for (const t of b.txs) {
        ethIndex.set(t.plan?.evmHash ?? fakeEthTxHash(t.hash), b.height);
        cosmosIndex.set(t.hash, b.height);
      }
    },
    findCosmos: (hash: string) => cosmosIndex.get(hash),
    findEth(hash: string): { block: GeneratedBlock; index: number } | undefined {
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
}

/** Bank-side state answered from the ERC20 ledger: balances, accounts, denoms and holders. */
function ledgerState(
  deps: EvmVmDeps,
  ledger: ReturnType<typeof createEvmLedger>,
  bech: (hex: string) => string,
): Pick<VmSetup, 'balanceOf' | 'accountsAt' | 'denomsOf' | 'holders'> {
  const { ctx } = deps;
  const k = deps.contracts;
  const hexOf = (address: string): string | undefined => {
    const bytes = tryAccountBytes(address, ctx.prefix);
    return bytes && bytes.length === 20 ? '0x' + Buffer.from(bytes).toString('hex') : undefined;
  };
  return {
    balanceOf(address, denom, height) {
      const token = k.tokenOf(denom);
      const hex = token ? hexOf(address) : undefined;
      if (!token || !hex) return undefined;
      return ledger.balanceOf(token, hex, deps.lastTxAt(height)).toString();
    },
    accountsAt: (height) => ledger.addresses(deps.lastTxAt(height)),
    denomsOf(address, height) {
      const hex = hexOf(address);
      if (!hex) return [];
      return ledger.tokensOf(hex, deps.lastTxAt(height)).flatMap((token) => k.denomOf(token) ?? []);
    },
    holders(denom, atHeight) {
      const token = k.tokenOf(denom);
      if (!token) return [];
      return ledger
        .holders(token, deps.lastTxAt(atHeight))
        .map((x) => ({ account: bech(x.address), amount: x.amount.toString() }));
    },
  };
}

/** The EVM JSON-RPC and REST surfaces' view of the VM. */
function rpcContext(
  deps: EvmVmDeps,
  parts: {
    chainId: bigint;
    plan: NftPlanContext;
    ledger: ReturnType<typeof createEvmLedger>;
    model: ReturnType<typeof createEvmModel>;
    indexes: ReturnType<typeof createTxIndexes>;
    holderHex: (h: number) => string;
  },
): EvmRpcContext {
  const { chainId, plan, ledger, model, indexes, holderHex } = parts;
  return {
    get chain() {
      return deps.chain();
    },
    chainId,
    contracts: deps.contracts,
    plan,
    ledger,
    evmData: (tx) => model.evmData(tx),
    holderHex,
    head: deps.head,
    base: deps.base,
    ...(deps.refused ? { refused: deps.refused } : {}),
    lastTxAt: deps.lastTxAt,
    findCosmos: indexes.findCosmos,
    recentHeights: deps.recentHeights,
    findEth: indexes.findEth,
  };
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
  const indexes = createTxIndexes(deps);
  const holderHex = (h: number): string => evmHolder(k, ctx.accounts, h);
  const rpcCtx = rpcContext(deps, { chainId, plan, ledger, model, indexes, holderHex });
  const bech = (hex: string): string => toBech32(Buffer.from(hex.slice(2), 'hex'), ctx.prefix);
  return {
    model,
    onBlock: indexes.onBlock,
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
    ...ledgerState(deps, ledger, bech),
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
      ...(f.error !== undefined ? { error: f.error } : {}),
    });
    for (const child of f.calls ?? []) walk(child, index);
  };
  walk(root, -1);
  return out;
}
