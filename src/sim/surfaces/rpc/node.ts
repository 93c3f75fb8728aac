import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { Outcome } from '../jsonrpc.js';
import { PUBKEY_TYPE_URL, sha256 } from '../../chain/keys.js';
import type { ClientRpcContext } from './client-context.js';
import { bytesParam, internalError, intParamOf, isOutcome, pagingParams } from './params.js';

/**
 * Node-level methods: genesis, genesis_chunked, net_info, consensus_params, the (always empty)
 * mempool, and CheckTx for nodes without the VIP chain model.
 */

const CONSENSUS_PARAMS =
  '{"block":{"max_bytes":"22020096","max_gas":"-1"},"evidence":{"max_age_num_blocks":"100000",' +
  '"max_age_duration":"172800000000000","max_bytes":"1048576"},"validator":{"pub_key_types":["ed25519"]},' +
  '"version":{"app":"0"},"abci":{"vote_extensions_enable_height":"0"}}';

/** The GenesisDoc: the sequencer, consensus params, and the keyring as genesis auth accounts. */
export function genesisJson(ctx: ClientRpcContext): string {
  const v = ctx.chain.validator;
  const accounts = ctx.accounts.map((a) =>
    JSON.stringify({
      '@type': '/cosmos.auth.v1beta1.BaseAccount',
      address: a.bech32,
      pub_key: { '@type': PUBKEY_TYPE_URL[a.keyType], key: Buffer.from(a.publicKey).toString('base64') },
      account_number: String(a.accountNumber),
      sequence: '0',
    }),
  );
  return (
    `{"genesis_time":"${ctx.chain.timeOf(1)}","chain_id":"${ctx.chainId}","initial_height":"1",` +
    `"consensus_params":${CONSENSUS_PARAMS},"validators":[{"address":"${v.address}",` +
    `"pub_key":{"type":"tendermint/PubKeyEd25519","value":"${v.pubKeyB64}"},"power":"1","name":"rollup-sim"}],` +
    `"app_hash":"","app_state":{"auth":{"accounts":[${accounts.join(',')}]}}}`
  );
}

export function genesisChunked(ctx: ClientRpcContext, params: Record<string, unknown>): Outcome {
  const chunk = intParamOf(params.chunk, 'chunk');
  if (isOutcome(chunk)) return chunk;
  const id = chunk ?? 0;
  // One chunk: CometBFT splits the genesis in 16 MB pieces and the simulator's is far smaller.
  if (id < 0) return internalError(`error converting json params to arguments: chunk: ${id} is not a uint`);
  if (id > 0) return internalError(`there are 0 chunks, ${id} is invalid`);
  const data = Buffer.from(genesisJson(ctx)).toString('base64');
  return { result: `{"chunk":"0","total":"1","data":"${data}"}` };
}

export function consensusParams(height: number): Outcome {
  return { result: `{"block_height":"${height}","consensus_params":${CONSENSUS_PARAMS}}` };
}

export function netInfo(): Outcome {
  return {
    result: '{"listening":true,"listeners":["Listener(@tcp://0.0.0.0:26656)"],"n_peers":"0","peers":[]}',
  };
}

/** The mempool is always empty: blocks are generated with their txs. */
export function unconfirmedTxs(params: Record<string, unknown>, count: boolean): Outcome {
  if (!count) {
    const paging = pagingParams({ per_page: params.limit });
    if (isOutcome(paging)) return paging;
  }
  return { result: `{"n_txs":"0","total":"0","total_bytes":"0","txs":${count ? 'null' : '[]'}}` };
}

interface CheckResult {
  code: number;
  log: string;
  hash: string;
}

/**
 * CheckTx on a node that cannot run the tx: bytes that are not a TxRaw fail as the SDK's tx
 * decoder does (code 2); a tx already in the chain is code 19; any other is refused with code 37
 * (feature not supported), naming the flag that makes the simulator execute txs.
 */
function checkTx(ctx: ClientRpcContext, bytes: Buffer): CheckResult {
  const hash = sha256(bytes).toString('hex').toUpperCase();
  let decoded = false;
  try {
    decoded = bytes.length > 0 && TxRaw.decode(bytes).bodyBytes.length > 0;
  } catch {
    decoded = false;
  }
  if (!decoded) return { code: 2, log: 'tx parse error', hash };
  if (ctx.findTx(hash)) return { code: 19, log: 'tx already exists in cache', hash };
  return {
    code: 37,
    log: 'the simulator does not execute txs; start it with --vip to broadcast: feature not supported',
    hash,
  };
}

/** broadcast_tx_sync / _async / _commit and check_tx, after extensions (the VIP model) passed. */
export function broadcastFallback(
  ctx: ClientRpcContext,
  method: string,
  params: Record<string, unknown>,
): Outcome | undefined {
  if (!['broadcast_tx_sync', 'broadcast_tx_async', 'broadcast_tx_commit', 'check_tx'].includes(method))
    return undefined;
  const bytes = bytesParam(params.tx ?? '', 'tx');
  if (isOutcome(bytes)) return bytes;
  const r = checkTx(ctx, bytes);
  const logJson = JSON.stringify(r.log);
  const checkJson = `{"code":${r.code},"log":${logJson},"codespace":"sdk"}`;
  switch (method) {
    case 'check_tx':
      return { result: checkJson };
    case 'broadcast_tx_async':
      // Async answers before CheckTx runs, as CometBFT does; the tx then never lands.
      return { result: `{"code":0,"data":"","log":"","codespace":"","hash":"${r.hash}"}` };
    case 'broadcast_tx_commit':
      return {
        result: `{"check_tx":${checkJson},"tx_result":{},"hash":"${r.hash}","height":"0"}`,
      };
    default:
      return { result: `{"code":${r.code},"data":"","log":${logJson},"codespace":"sdk","hash":"${r.hash}"}` };
  }
}
