import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimExtension, SimHttpRequest } from '../types.js';

/**
 * A tiny standalone HTTP server for one or more simulator extensions: REST routes, and CometBFT
 * JSON-RPC (POST / with a JSON-RPC body, or the URI form GET/POST /<method>). Used by tests and
 * benches; the full simulator mounts the same extensions.
 */
export interface ExtensionServer {
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function serveExtensions(
  extensions: (SimExtension & { dropNextBroadcastResponse?: () => boolean })[],
  host = '127.0.0.1',
  port = 0,
): Promise<ExtensionServer> {
  const server: Server = createServer((req, res) => {
    void handle(req).then(
      (out) => {
        if (extensions.some((e) => e.dropNextBroadcastResponse?.())) {
          res.destroy();
          return;
        }
        const text = typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
        res.writeHead(out.status, { 'content-type': 'application/json', ...(out.headers ?? {}) });
        res.end(text);
      },
      (err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 13, message: (err as Error).message, details: [] }));
      },
    );
  });

  async function handle(
    req: IncomingMessage,
  ): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readBody(req);
    const rpcBody = body as
      { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown> } | undefined;
    if (req.method === 'POST' && url.pathname === '/' && rpcBody?.jsonrpc === '2.0' && rpcBody.method) {
      return rpcAnswer(rpcBody.method, rpcBody.params ?? {}, rpcBody.id ?? null);
    }
    const simReq: SimHttpRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers as Record<string, string | undefined>,
      body,
    };
    for (const ext of extensions) {
      const out = await ext.rest?.(simReq);
      if (out) return out;
    }
    const method = url.pathname.slice(1);
    if (/^[a-z_]+$/.test(method)) return rpcAnswer(method, Object.fromEntries(url.searchParams), -1);
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

  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
