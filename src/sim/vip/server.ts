import { closeServer, createRawServer, listen } from '../surfaces/http.js';
import type { SimExtension, SimHttpRequest, SimHttpResponse } from '../types.js';

/**
 * A tiny standalone HTTP server for one or more simulator extensions: REST routes, and CometBFT
 * JSON-RPC (POST / with a JSON-RPC body, or the URI form GET/POST /<method>), on the simulator's
 * own HTTP server. Used by tests and benches; the full simulator mounts the same extensions.
 */
export interface ExtensionServer {
  url: string;
  close(): Promise<void>;
}

/** An extension answer that may ask, as a fault, for the connection to be cut instead. */
export type ExtensionResponse = SimHttpResponse & { reset?: boolean };

/** A simulator extension whose REST answers may carry `reset`. */
export interface ServedExtension extends SimExtension {
  rest?(req: SimHttpRequest): ExtensionResponse | undefined | Promise<ExtensionResponse | undefined>;
}

export async function serveExtensions(
  extensions: ServedExtension[],
  host = '127.0.0.1',
  port = 0,
): Promise<ExtensionServer> {
  const server = createRawServer(
    async (req) => {
      let out;
      try {
        out = await handle(req);
      } catch (err) {
        return {
          status: 500,
          body: JSON.stringify({ code: 13, message: (err as Error).message, details: [] }),
        };
      }
      if (out.reset) return { status: 0, body: '', reset: true };
      const body = typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
      return { status: out.status, body, headers: { 'content-type': 'application/json', ...out.headers } };
    },
    () => undefined,
  );

  async function handle(req: SimHttpRequest): Promise<ExtensionResponse> {
    const rpcBody = req.body as
      { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown> } | undefined;
    if (req.method === 'POST' && req.path === '/' && rpcBody?.jsonrpc === '2.0' && rpcBody.method) {
      return rpcAnswer(rpcBody.method, rpcBody.params ?? {}, rpcBody.id ?? null);
    }
    for (const ext of extensions) {
      const out = await ext.rest?.(req);
      if (out) return out;
    }
    const method = req.path.slice(1);
    if (/^[a-z_]+$/.test(method)) return rpcAnswer(method, Object.fromEntries(req.query), -1);
    return { status: 501, body: { code: 12, message: 'Not Implemented', details: [] } };
  }

  async function rpcAnswer(method: string, params: Record<string, unknown>, id: unknown) {
    for (const ext of extensions) {
      const out = await ext.rpc?.(method, params);
      if (out) return { status: 200, body: { jsonrpc: '2.0', id, ...out } };
    }
    return {
      status: 200,
      body: { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
    };
  }

  return { url: await listen(server, host, port), close: () => closeServer(server) };
}
