import { AppError } from '../shared/errors.js';

export interface AbciInfo {
  data: string;
  version: string;
  lastBlockHeight: string;
}

/** Rollup version from CometBFT `abci_info` (strict JSON-RPC POST to the RPC root). */
export async function readAbciInfo(rpcUrl: string, timeoutMs = 10_000): Promise<AbciInfo> {
  let body: { result?: { response?: { data?: string; version?: string; last_block_height?: string } } };
  try {
    const res = await fetch(rpcUrl.replace(/\/+$/, '') + '/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'abci_info', params: {} }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    body = (await res.json()) as typeof body;
  } catch (err) {
    throw new AppError('node_unreachable', `RPC ${rpcUrl}: ${(err as Error).message}`, { retryable: true });
  }
  const r = body.result?.response;
  if (!r?.version) throw new AppError('bad_response', 'abci_info answered without a version');
  return { data: r.data ?? '', version: r.version, lastBlockHeight: r.last_block_height ?? '' };
}
