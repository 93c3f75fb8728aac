import { AppError } from '../../shared/errors.js';
import type { RawResponse } from '../surfaces/http.js';
import { grpcError } from '../surfaces/rest/blocks.js';
import type { SimHttpRequest, SimulatorTruth } from '../types.js';

/**
 * `GET {rest}/sim/v1/truth/...`: the same ground truth as the in-process API.
 *   block/{h} · nft_collections?height=H · nft_tokens?height=H · holders?denom=D&height=H ·
 *   internal_txs/{0xhash}
 */
export function handleTruthRoute(
  truth: SimulatorTruth,
  head: () => number,
  req: SimHttpRequest,
): RawResponse | undefined {
  if (!req.path.startsWith('/sim/v1/truth/')) return undefined;
  const rest = req.path.slice('/sim/v1/truth/'.length);
  const heightParam = (): number => Number(req.query.get('height') ?? String(head()));
  try {
    let body: unknown;
    if (rest.startsWith('block/')) body = truth.block(Number(rest.slice(6)));
    else if (rest === 'nft_collections') body = truth.nftCollections(heightParam());
    else if (rest === 'nft_tokens') body = truth.nftTokens(heightParam());
    else if (rest === 'holders') body = truth.holders(req.query.get('denom') ?? '', heightParam());
    else if (rest.startsWith('internal_txs/')) body = truth.internalTxs(rest.slice('internal_txs/'.length));
    else return grpcError(404, 5, `unknown truth route ${req.path}`);
    return { status: 200, body: JSON.stringify(body) };
  } catch (err) {
    if (err instanceof AppError) return grpcError(400, 3, err.message);
    throw err;
  }
}
