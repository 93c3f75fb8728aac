import { checksum } from './abi.js';
import { contractCall, type EvmRpcContext } from '../../surfaces/evm-rpc/methods.js';
import { grpcError, ok, type RestAnswer } from '../../surfaces/rest/blocks.js';
import { queryHeight } from '../../surfaces/rest/state.js';
import type { SimHttpRequest } from '../../types.js';

/**
 * minievm REST: `POST /minievm/evm/v1/call`, `GET /minievm/evm/v1/contracts/by_denom` and its
 * inverse `GET /minievm/evm/v1/denoms/{contract_addr}`.
 */
export function createEvmRest(ctx: EvmRpcContext): (req: SimHttpRequest) => RestAnswer | undefined {
  return (req) => {
    if (req.path === '/minievm/evm/v1/contracts/by_denom') {
      const denom = req.query.get('denom') ?? '';
      const token = ctx.contracts.tokenOf(denom);
      if (!token) return grpcError(404, 5, `denom ${denom} has no contract: not found`);
      return ok(JSON.stringify({ address: checksum(token) }));
    }
    const denomsPrefix = '/minievm/evm/v1/denoms/';
    if (req.path.startsWith(denomsPrefix)) {
      const contract = req.path.slice(denomsPrefix.length);
      const denom = ctx.contracts.denomOf(contract);
      if (!denom) return grpcError(404, 5, `contract ${contract} has no denom: not found`);
      return ok(JSON.stringify({ denom }));
    }
    if (req.path === '/minievm/evm/v1/call' && req.method === 'POST') {
      const h = queryHeight(ctx, req);
      if (typeof h !== 'number') return h;
      const body = (req.body ?? {}) as { contract_addr?: string; input?: string };
      if (typeof body.contract_addr !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(body.contract_addr)) {
        return grpcError(400, 3, 'invalid contract_addr: expected a 0x-prefixed 20-byte hex address');
      }
      const answer = contractCall(
        ctx,
        body.contract_addr.toLowerCase(),
        (body.input ?? '0x').toLowerCase(),
        h,
      );
      return ok(
        JSON.stringify({
          response: answer.revert !== undefined ? '0x' : answer.output,
          used_gas: '21000',
          logs: [],
          trace_output: '',
          error: answer.revert !== undefined ? `Reverted: execution reverted, ret: ${answer.revert}` : '',
        }),
      );
    }
    return undefined;
  };
}
