import { requestOnce, unreachable } from '../node/transport.js';
import { AppError } from '../shared/errors.js';

export interface AbciInfo {
  data: string;
  version: string;
  lastBlockHeight: string;
}

type AbciInfoBody = {
  result?: { response?: { data?: string; version?: string; last_block_height?: string } };
};

/** Rollup version from CometBFT `abci_info` (strict JSON-RPC POST to the RPC root). */
export async function readAbciInfo(rpcUrl: string, timeoutMs = 10_000): Promise<AbciInfo> {
  let body: AbciInfoBody;
  try {
    const res = await requestOnce(
      { name: 'RPC', baseUrl: rpcUrl, timeoutMs },
      {
        method: 'POST',
        path: '/',
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'abci_info', params: {} }),
      },
    );
    body = JSON.parse(res.text) as AbciInfoBody;
  } catch (err) {
    throw unreachable('RPC', rpcUrl, err);
  }
  const r = body.result?.response;
  if (!r?.version) throw new AppError('bad_response', 'abci_info answered without a version');
  return { data: r.data ?? '', version: r.version, lastBlockHeight: r.last_block_height ?? '' };
}
