import type { Outcome } from '../jsonrpc.js';
import { abciQuery } from './abci-query.js';
import type { ClientRpcContext } from './client-context.js';
import { blockByHash, blockSearch, commit, header, headerByHash } from './headers.js';
import { consensusParams, genesisChunked, genesisJson, netInfo, unconfirmedTxs } from './node.js';
import { txByHash, txSearch } from './tx-search.js';
import { resolveHeight } from './params.js';

/** The CometBFT 0.38 methods clients call besides /block and /block_results. */
export async function callClientRpc(
  ctx: ClientRpcContext,
  method: string,
  params: Record<string, unknown>,
): Promise<Outcome | undefined> {
  switch (method) {
    case 'tx':
      return txByHash(ctx, params);
    case 'tx_search':
      return txSearch(ctx, params);
    case 'block_search':
      return blockSearch(ctx, params);
    case 'block_by_hash':
      return blockByHash(ctx, params);
    case 'header':
      return header(ctx, params);
    case 'header_by_hash':
      return headerByHash(ctx, params);
    case 'commit':
      return commit(ctx, params);
    case 'genesis':
      return { result: `{"genesis":${genesisJson(ctx)}}` };
    case 'genesis_chunked':
      return genesisChunked(ctx, params);
    case 'net_info':
      return netInfo();
    case 'consensus_params': {
      const h = resolveHeight(ctx, params.height, ctx.head());
      return typeof h === 'number' ? consensusParams(h) : h;
    }
    case 'unconfirmed_txs':
    case 'num_unconfirmed_txs':
      return unconfirmedTxs(params, method === 'num_unconfirmed_txs');
    case 'abci_query':
      return abciQuery(ctx, params);
    default:
      return undefined;
  }
}
