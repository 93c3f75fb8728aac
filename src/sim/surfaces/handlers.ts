import type { FaultInjector, Surface } from './faults.js';
import type { RawResponse } from './http.js';
import { fromExtension, handleJsonRpcPost, type Outcome } from './jsonrpc.js';
import { grpcError, handleBlockRoutes, type RestAnswer, type RestContext } from './rest/blocks.js';
import { handleStateRoutes, type StateContext } from './rest/state.js';
import { callRpc, normaliseParams } from './rpc/core.js';
import type { ClientRpcContext } from './rpc/client-context.js';
import { callClientRpc } from './rpc/client-methods.js';
import { broadcastFallback } from './rpc/node.js';
import { handleTruthRoute } from '../truth/routes.js';
import type { SimExtension, SimHttpRequest, SimulatorTruth } from '../types.js';

/** The three HTTP surfaces: the simulator's own routes first, then each extension in order. */
export type Handler = (req: SimHttpRequest) => Promise<RawResponse>;

const URI_PREFIX = Buffer.from('{"jsonrpc":"2.0","id":-1,"result":');
const URI_SUFFIX = Buffer.from('}');

/** CometBFT RPC: POST JSON-RPC (errors in place, HTTP 200) and GET URI (errors as HTTP 500). */
export function createCometHandler(ctx: ClientRpcContext, extensions: SimExtension[]): Handler {
  const call = async (method: string, params: unknown): Promise<Outcome | undefined> => {
    const named = normaliseParams(method, params);
    const own = callRpc(ctx, method, named) ?? (await callClientRpc(ctx, method, named));
    if (own) return own;
    for (const ext of extensions) {
      const answer = await ext.rpc?.(method, named);
      if (answer) return fromExtension(answer);
    }
    // Broadcasts reach the simulator only when no extension (the VIP chain model) ran them.
    return broadcastFallback(ctx, method, named);
  };
  return async (req) => {
    if (req.method === 'POST') {
      return handleJsonRpcPost(
        req.body,
        call,
        () => ({ error: { code: -32601, message: 'Method not found' } }),
        () => ({
          status: 500,
          body: '{"jsonrpc":"2.0","id":-1,"error":{"code":-32700,"message":"Parse error. Invalid JSON","data":"error unmarshaling request"}}',
        }),
      );
    }
    const method = req.path.slice(1);
    if (method === '') {
      return {
        status: 200,
        body:
          'Available endpoints: /abci_info /abci_query /block /block_by_hash /block_results /block_search ' +
          '/blockchain /broadcast_tx_async /broadcast_tx_commit /broadcast_tx_sync /check_tx /commit ' +
          '/consensus_params /genesis /genesis_chunked /header /header_by_hash /health /net_info ' +
          '/num_unconfirmed_txs /status /tx /tx_search /unconfirmed_txs /validators',
      };
    }
    const params: Record<string, unknown> = {};
    for (const [k, v] of req.query) params[k] = v;
    const outcome = await call(method, params);
    if (!outcome) return { status: 404, body: '404 page not found\n' };
    if ('error' in outcome)
      return { status: 500, body: `{"jsonrpc":"2.0","id":-1,"error":${JSON.stringify(outcome.error)}}` };
    if ('resultBytes' in outcome) {
      return { status: 200, body: Buffer.concat([URI_PREFIX, outcome.resultBytes, URI_SUFFIX]) };
    }
    return { status: 200, body: `{"jsonrpc":"2.0","id":-1,"result":${outcome.result}}` };
  };
}

export interface RestSurface {
  truth: SimulatorTruth;
  head(): number;
  restCtx: RestContext;
  stateCtx: StateContext;
  /** The VM's own REST state routes (VmSetup.rest). */
  vm: { rest?(req: SimHttpRequest): RestAnswer | undefined };
  extensions: SimExtension[];
}

/** Cosmos REST plus the /sim/v1/truth routes; unknown routes answer like the gRPC gateway (501). */
export function createRestHandler(s: RestSurface): Handler {
  return async (req) => {
    const truthAnswer = handleTruthRoute(s.truth, s.head, req);
    if (truthAnswer) return truthAnswer;
    const own =
      req.method === 'GET'
        ? (handleBlockRoutes(s.restCtx, req.path, req.query) ??
          handleStateRoutes(s.stateCtx, req) ??
          s.vm.rest?.(req))
        : s.vm.rest?.(req);
    // A record the generated chain does not know (404) may belong to an extension's state, e.g.
    // the VIP chain model's accounts, txs and module resources.
    if (own && own.status !== 404) return own;
    for (const ext of s.extensions) {
      const answer = await ext.rest?.(req);
      if (answer) {
        const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        return { status: answer.status, body, ...(answer.headers ? { headers: answer.headers } : {}) };
      }
    }
    return own ?? grpcError(501, 12, 'Not Implemented');
  };
}

/** EVM JSON-RPC with geth-style framing: errors answer HTTP 200; an unknown method is -32601. */
export function createEvmHandler(
  vm: { jsonRpc?(method: string, params: unknown): Outcome | undefined },
  extensions: SimExtension[],
): Handler {
  const call = async (method: string, params: unknown): Promise<Outcome | undefined> => {
    const own = vm.jsonRpc?.(method, params);
    if (own) return own;
    const list = Array.isArray(params) ? (params as unknown[]) : [];
    for (const ext of extensions) {
      const answer = await ext.jsonRpc?.(method, list);
      if (answer) return fromExtension(answer);
    }
    return undefined;
  };
  return async (req) => {
    if (req.method !== 'POST') return { status: 405, body: 'method not allowed\n' };
    return handleJsonRpcPost(
      req.body,
      call,
      (m) => ({ error: { code: -32601, message: `the method ${m} does not exist/is not available` } }),
      () => ({
        status: 200,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}',
      }),
    );
  };
}

/** Faults apply to the node surfaces, never to the simulator's own /sim/ routes. */
export function faultWrapped(faults: FaultInjector, surface: Surface, handler: Handler): Handler {
  return async (req) => {
    if (req.path.startsWith('/sim/')) return handler(req);
    const fault = faults.next(surface);
    const out = fault ?? (await handler(req));
    faults.served(surface, out.body);
    return faults.delays() ? { ...out, delayMs: faults.spec.latencyMs } : out;
  };
}
