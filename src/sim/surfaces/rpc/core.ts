import type { Chain } from '../../chain/blocks.js';
import type { Outcome } from '../jsonrpc.js';
import { CLIENT_PARAM_NAMES, internalError, intParamOf, isOutcome, resolveHeight } from './params.js';

/**
 * CometBFT 0.38 RPC methods over the generated chain. Results are raw JSON text so cached
 * blocks are spliced into responses without re-serialising.
 */
export type RpcOutcome = Outcome;

export interface RpcContext {
  chain: Chain;
  chainId: string;
  head(): number;
  /** Lowest height served (pruning). */
  base(): number;
  /** Fault injection: block_results of this height lags behind /block (not there yet). */
  resultsMissing(height: number, head: number): boolean;
  nodeVersion: string;
  appName: string;
  rpcListenAddr(): string;
  nodeId: string;
}

/** Positional parameter names, for JSON-RPC calls that send params as an array. */
const PARAM_NAMES: Record<string, string[]> = {
  block: ['height'],
  block_results: ['height'],
  blockchain: ['minHeight', 'maxHeight'],
  validators: ['height', 'page', 'per_page'],
  ...CLIENT_PARAM_NAMES,
};

export function normaliseParams(method: string, params: unknown): Record<string, unknown> {
  if (Array.isArray(params)) {
    const names = PARAM_NAMES[method] ?? [];
    const out: Record<string, unknown> = {};
    params.forEach((v, i) => {
      const name = names[i];
      if (name !== undefined) out[name] = v;
    });
    return out;
  }
  return params !== null && typeof params === 'object' ? (params as Record<string, unknown>) : {};
}

export function callRpc(
  ctx: RpcContext,
  method: string,
  params: Record<string, unknown>,
): RpcOutcome | undefined {
  const head = ctx.head();
  switch (method) {
    case 'health':
      return { result: '{}' };
    case 'status':
      return { result: statusJson(ctx, head) };
    case 'abci_info':
      return {
        result:
          `{"response":{"data":"${ctx.appName}","version":"${ctx.nodeVersion.replace(/^v/, '')}",` +
          `"last_block_height":"${head}","last_block_app_hash":"${Buffer.from(ctx.chain.appHash(head), 'hex').toString('base64')}"}}`,
      };
    case 'block': {
      const h = resolveHeight(ctx, params.height, head);
      if (typeof h !== 'number') return h;
      const b = ctx.chain.block(h);
      return { resultBytes: b.blockBytes };
    }
    case 'block_results': {
      const h = resolveHeight(ctx, params.height, head);
      if (typeof h !== 'number') return h;
      if (ctx.resultsMissing(h, head)) return internalError(`could not find results for height #${h}`);
      const b = ctx.chain.block(h);
      return { resultBytes: b.resultsBytes };
    }
    case 'validators': {
      const h = resolveHeight(ctx, params.height, head);
      if (typeof h !== 'number') return h;
      const v = ctx.chain.validator;
      return {
        result:
          `{"block_height":"${h}","validators":[{"address":"${v.address}","pub_key":{"type":"tendermint/PubKeyEd25519",` +
          `"value":"${v.pubKeyB64}"},"voting_power":"1","proposer_priority":"0"}],"count":"1","total":"1"}`,
      };
    }
    case 'blockchain':
      return blockchain(ctx, params, head);
    default:
      return undefined;
  }
}

function blockchain(ctx: RpcContext, params: Record<string, unknown>, head: number): RpcOutcome {
  const minP = intParamOf(params.minHeight, 'minHeight');
  const maxP = intParamOf(params.maxHeight, 'maxHeight');
  if (isOutcome(minP)) return minP;
  if (isOutcome(maxP)) return maxP;
  const base = ctx.base();
  let min = minP ?? 0;
  let max = maxP ?? 0;
  // rpc/core/blocks.go filterMinMax
  if (min < 0 || max < 0) return internalError('heights must be non-negative');
  if (min === 0) min = 1;
  if (max === 0) max = head;
  max = Math.min(head, max);
  min = Math.max(base, min);
  if (min > max) return internalError(`min height ${min} can't be greater than max height ${max}`);
  min = Math.max(min, max - 20 + 1);
  const metas: string[] = [];
  for (let h = max; h >= min; h--) {
    const b = ctx.chain.block(h);
    const json = b.blockJson;
    const headerStart = json.indexOf('"header":') + 9;
    const headerEnd = json.indexOf(',"data":');
    const blockId = json.slice(json.indexOf('{', 12), json.indexOf(',"block":'));
    const size = Buffer.byteLength(json);
    metas.push(
      `{"block_id":${blockId},"block_size":"${size}","header":${json.slice(headerStart, headerEnd)},"num_txs":"${b.txs.length}"}`,
    );
  }
  return { result: `{"last_height":"${head}","block_metas":[${metas.join(',')}]}` };
}

function statusJson(ctx: RpcContext, head: number): string {
  const base = ctx.base();
  const v = ctx.chain.validator;
  return (
    `{"node_info":{"protocol_version":{"p2p":"8","block":"11","app":"0"},"id":"${ctx.nodeId}",` +
    `"listen_addr":"tcp://0.0.0.0:26656","network":"${ctx.chainId}","version":"0.38.17","channels":"40202122233038606100",` +
    `"moniker":"rollup-sim","other":{"tx_index":"on","rpc_address":"${ctx.rpcListenAddr()}"}},` +
    `"sync_info":{"latest_block_hash":"${ctx.chain.blockHash(head)}","latest_app_hash":"${ctx.chain.appHash(head - 1)}",` +
    `"latest_block_height":"${head}","latest_block_time":"${ctx.chain.timeOf(head)}",` +
    `"earliest_block_hash":"${ctx.chain.blockHash(base)}","earliest_app_hash":"${ctx.chain.appHash(base - 1)}",` +
    `"earliest_block_height":"${base}","earliest_block_time":"${ctx.chain.timeOf(base)}","catching_up":false},` +
    `"validator_info":{"address":"${v.address}","pub_key":{"type":"tendermint/PubKeyEd25519","value":"${v.pubKeyB64}"},` +
    `"voting_power":"1"}}`
  );
}
