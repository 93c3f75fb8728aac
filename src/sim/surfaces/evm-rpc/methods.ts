import type { Chain, GeneratedBlock } from '../../chain/blocks.js';
import { abiString, hexQuantity, NONEXISTENT_TOKEN, SELECTOR, word, ZERO_ADDRESS } from '../../vm/evm/abi.js';
import type { EvmContracts } from '../../vm/evm/contracts.js';
import type { EvmLedger } from '../../vm/evm/ledger.js';
import type { EvmFrame, EvmTxData } from '../../vm/evm/types.js';
import type { Outcome } from '../jsonrpc.js';
import { Lru } from '../../chain/lru.js';
import {
  collectionCreatedBy,
  collectionName,
  COLLECTIONS,
  ibcCollectionCreatedBy,
  ibcTokensAfter,
  tokensAfter,
  type NftPlanContext,
} from '../../chain/nft-lifecycle.js';
import type { PlannedTx } from '../../chain/plan.js';
import { buildView, type EthView } from './block-view.js';
import { lowestState, prunedState } from '../rest/state.js';

/** EVM JSON-RPC (minievm shapes) over the generated chain. Results are raw JSON text. */
export interface EvmRpcContext {
  chain: Chain;
  chainId: bigint;
  contracts: EvmContracts;
  plan: NftPlanContext;
  ledger: EvmLedger;
  evmData(tx: PlannedTx): EvmTxData | undefined;
  holderHex(h: number): string;
  head(): number;
  base(): number;
  /** Counts a call refused for a height below the lowest (the fault log's `unavailable`). */
  refused?(): void;
  lastTxAt(height: number): number;
  recentHeights(): number[];
  /** Height of a Cosmos tx (upper-case hex) the simulator has generated, if any. */
  findCosmos(hash: string): number | undefined;
  /** Locate a tx by its 0x Ethereum hash (real or fake). */
  findEth(hash: string): { block: GeneratedBlock; index: number } | undefined;
}

const ok = (value: unknown): Outcome => ({ result: JSON.stringify(value) });
const raw = (text: string): Outcome => ({ result: text });
const rpcError = (code: number, message: string, data?: string): Outcome => ({
  error: { code, message, ...(data !== undefined ? { data } : {}) },
});

/** A block tag or hex number as a served height; undefined past the head or before 1. */
function resolveBlockTag(ctx: EvmRpcContext, tag: unknown): number | undefined {
  const head = ctx.head();
  if (tag === undefined || tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized')
    return head;
  if (tag === 'earliest') return ctx.base();
  if (typeof tag === 'string' && /^0x[0-9a-fA-F]+$/.test(tag)) {
    const n = Number.parseInt(tag.slice(2), 16);
    return n <= head && n >= 1 ? n : undefined;
  }
  return undefined;
}

function blockJson(ctx: EvmRpcContext, v: EthView, h: number, full: boolean): string {
  const b = ctx.chain.block(h);
  const parent = h > 1 ? '0x' + ctx.chain.blockHash(h - 1).toLowerCase() : '0x' + '0'.repeat(64);
  const seconds = Math.floor(Date.parse(b.time) / 1000);
  const txs = full ? `[${v.txObjects.join(',')}]` : JSON.stringify(v.ethHashes);
  const root = '0x' + b.header.dataHash.toLowerCase();
  return (
    `{"baseFeePerGas":"0x0","difficulty":"0x0","extraData":"0x","gasLimit":"0x3b9aca00","gasUsed":"${hexQuantity(v.gasUsed)}",` +
    `"hash":"${v.hash}","logsBloom":"${v.logsBloom}","miner":"${ZERO_ADDRESS}","mixHash":"0x${'0'.repeat(64)}",` +
    `"nonce":"0x0000000000000000","number":"${hexQuantity(h)}","parentHash":"${parent}","receiptsRoot":"${root}",` +
    `"sha3Uncles":"0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347","size":"${hexQuantity(b.blockBytes.length)}",` +
    `"stateRoot":"0x${b.header.appHash.toLowerCase()}","timestamp":"${hexQuantity(seconds)}","totalDifficulty":"0x0",` +
    `"transactions":${txs},"transactionsRoot":"${root}","uncles":[]}`
  );
}

const traceOutcome = (t: { txHash: string; frame: EvmFrame }): unknown => ({
  txHash: t.txHash,
  result: t.frame,
});

type ViewOf = (h: number) => EthView;

/** The chain-wide methods, which need no block. */
function chainMethod(ctx: EvmRpcContext, method: string): Outcome | undefined {
  switch (method) {
    case 'eth_chainId':
      return ok(hexQuantity(ctx.chainId));
    case 'net_version':
      return ok(ctx.chainId.toString());
    case 'web3_clientVersion':
      return ok('minievm/v1.1.4/rollup-sim');
    case 'eth_blockNumber':
      return ok(hexQuantity(ctx.head()));
    case 'eth_gasPrice':
      return ok('0x3e8');
    default:
      return undefined;
  }
}

/**
 * A height below the node's lowest (docs/node-data.md §5.3): a block it no longer keeps is `null`
 * (`eth_getBlockByNumber`; its receipts `[]`, as minievm answers them), state it pruned the SDK's error as minievm passes
 * it on (`eth_call`, and a trace, which replays the block on its parent's state). State is kept
 * from the block before the lowest (`lowestState`).
 */
function belowLowest(ctx: EvmRpcContext, h: number, answer: () => Outcome): Outcome | undefined {
  if (h >= ctx.base()) return undefined;
  ctx.refused?.();
  return answer();
}
function stateBelowLowest(ctx: EvmRpcContext, h: number): Outcome | undefined {
  if (h >= lowestState(ctx.base())) return undefined;
  ctx.refused?.();
  return rpcError(-32000, `${prunedState(h, ctx.head())}: not found`);
}

/** The methods that read a block by tag. */
function blockMethod(ctx: EvmRpcContext, view: ViewOf, method: string, p: unknown[]): Outcome | undefined {
  switch (method) {
    case 'eth_getBlockByNumber': {
      const h = resolveBlockTag(ctx, p[0]);
      if (h === undefined) return raw('null');
      return belowLowest(ctx, h, () => raw('null')) ?? raw(blockJson(ctx, view(h), h, p[1] === true));
    }
    case 'eth_getBlockReceipts': {
      const h = resolveBlockTag(ctx, p[0]);
      if (h === undefined) return raw('null');
      // minievm's answer for a block its pruned EVM indexer dropped: no receipts, as an empty block.
      return belowLowest(ctx, h, () => raw('[]')) ?? raw(`[${view(h).receipts.join(',')}]`);
    }
    case 'debug_traceBlockByNumber': {
      const h = resolveBlockTag(ctx, p[0]);
      if (h === undefined) return rpcError(-32000, `block ${String(p[0])} not found`);
      if (h < 2) return rpcError(-32000, 'genesis is not traceable');
      const pruned = stateBelowLowest(ctx, h - 1);
      if (pruned) return pruned;
      return ok(
        view(h)
          .traces.filter((t) => t !== undefined)
          .map(traceOutcome),
      );
    }
    case 'eth_call':
      return ethCall(ctx, p[0], resolveBlockTag(ctx, p[1] ?? 'latest'));
    default:
      return undefined;
  }
}

/** The methods that find one tx by its Ethereum or Cosmos hash. */
function txMethod(ctx: EvmRpcContext, view: ViewOf, method: string, p: unknown[]): Outcome | undefined {
  const findEth = () => (typeof p[0] === 'string' ? ctx.findEth(p[0].toLowerCase()) : undefined);
  switch (method) {
    case 'eth_getTransactionReceipt':
    case 'eth_getTransactionByHash': {
      const found = findEth();
      if (!found) return raw('null');
      const v = view(found.block.height);
      return raw(
        method === 'eth_getTransactionReceipt' ? v.receipts[found.index]! : v.txObjects[found.index]!,
      );
    }
    case 'debug_traceTransaction': {
      const found = findEth();
      if (!found) return rpcError(-32000, 'transaction not found');
      const t = view(found.block.height).traces[found.index];
      return t ? ok(t.frame) : rpcError(-32000, 'transaction is not an ethereum transaction');
    }
    case 'cosmos_txHashByCosmosTxHash': {
      const hash = typeof p[0] === 'string' ? p[0].replace(/^0x/, '').toUpperCase() : '';
      const known = ctx.findCosmos(hash);
      for (const h of known !== undefined ? [known] : ctx.recentHeights()) {
        const b = ctx.chain.block(h);
        const i = b.txs.findIndex((t) => t.hash === hash);
        if (i >= 0) return ok(view(h).ethHashes[i]);
      }
      return raw('null');
    }
    case 'cosmos_cosmosTxHashByTxHash': {
      const found = findEth();
      return found ? ok('0x' + found.block.txs[found.index]!.hash.toLowerCase()) : raw('null');
    }
    default:
      return undefined;
  }
}

export function createEvmRpc(ctx: EvmRpcContext): (method: string, params: unknown) => Outcome | undefined {
  const views = new Lru<number, EthView>(512);
  const view: ViewOf = (h) => views.getOrSet(h, () => buildView(ctx, ctx.chain.block(h)));
  return (method, params) => {
    const p = Array.isArray(params) ? (params as unknown[]) : [];
    return chainMethod(ctx, method) ?? blockMethod(ctx, view, method, p) ?? txMethod(ctx, view, method, p);
  };
}

/** `eth_call`: read-only calls the indexer makes (ERC20 balances, ERC721 metadata). */
export function ethCall(ctx: EvmRpcContext, callArg: unknown, height: number | undefined): Outcome {
  if (height === undefined) return rpcError(-32000, 'header not found');
  const pruned = stateBelowLowest(ctx, height);
  if (pruned) return pruned;
  const call = (callArg ?? {}) as { to?: string; data?: string; input?: string };
  const answer = contractCall(
    ctx,
    (call.to ?? '').toLowerCase(),
    (call.data ?? call.input ?? '0x').toLowerCase(),
    height,
  );
  if (answer.revert !== undefined) return rpcError(3, 'execution reverted', answer.revert);
  return ok(answer.output);
}

export function contractCall(
  ctx: EvmRpcContext,
  to: string,
  input: string,
  height: number,
): { output: string; revert?: string } {
  const k = ctx.contracts;
  const lastG = ctx.lastTxAt(height);
  const selector = input.slice(0, 10);
  const arg = (i: number): string => input.slice(10 + 64 * i, 10 + 64 * (i + 1));
  const denom = k.denomOf(to);
  if (denom !== undefined) {
    if (selector === SELECTOR.balanceOf)
      return { output: '0x' + word(ctx.ledger.balanceOf(to, '0x' + arg(0).slice(24), lastG)) };
    if (selector === SELECTOR.name || selector === SELECTOR.symbol) return { output: abiString(denom) };
    if (selector === SELECTOR.decimals) return { output: '0x' + word(denom.startsWith('evm/') ? 18 : 6) };
    // The sum of every balance, as an ERC20's own bookkeeping keeps it.
    if (selector === SELECTOR.totalSupply)
      return { output: '0x' + word(ctx.ledger.supply(lastG).get(to) ?? 0n) };
    return { output: '0x', revert: '0x' };
  }
  let tokens: Map<string, { owner: string; uri: string }> | undefined;
  let name = '';
  for (let c = 0; c < COLLECTIONS; c++) {
    if (k.collection(c) === to && collectionCreatedBy(ctx.plan, c, lastG)) {
      name = collectionName(c);
      tokens = new Map(
        tokensAfter(ctx.plan, lastG)
          .filter((t) => t.collection === c)
          .map((t) => [t.tokenId, { owner: ctx.holderHex(t.owner), uri: t.uri }]),
      );
    }
  }
  if (to === k.ibcCollection && ibcCollectionCreatedBy(ctx.plan, lastG)) {
    name = k.ibcName;
    tokens = new Map(
      ibcTokensAfter(ctx.plan, lastG).map((t) => [t.tokenId, { owner: ctx.holderHex(t.owner), uri: t.uri }]),
    );
  }
  if (!tokens) return { output: '0x' };
  const id = BigInt('0x' + (arg(0) || '0'));
  const token = tokens.get(id.toString());
  switch (selector) {
    case SELECTOR.name:
      return { output: abiString(name) };
    case SELECTOR.symbol:
      return { output: abiString('SIM') };
    case SELECTOR.tokenURI:
      return token
        ? { output: abiString(token.uri) }
        : { output: '0x', revert: NONEXISTENT_TOKEN + word(id) };
    case SELECTOR.ownerOf:
      return token
        ? { output: '0x' + word(BigInt(token.owner)) }
        : { output: '0x', revert: NONEXISTENT_TOKEN + word(id) };
    case SELECTOR.balanceOf: {
      const owner = '0x' + arg(0).slice(24);
      return { output: '0x' + word([...tokens.values()].filter((t) => t.owner === owner).length) };
    }
    default:
      return { output: '0x', revert: '0x' };
  }
}
