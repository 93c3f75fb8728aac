import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../shared/errors.js';
import type { SimHttpRequest } from '../types.js';

/** A handler's answer: the body is already JSON (or plain) text, or its UTF-8 bytes. */
export interface RawResponse {
  status: number;
  body: string | Buffer;
  headers?: Record<string, string>;
  /** Fault injection: destroy the socket instead of answering. */
  reset?: boolean;
  /** Fault injection: never answer (the client times out). */
  hang?: boolean;
  delayMs?: number;
}

export type RawHandler = (req: SimHttpRequest, rawBody: string) => RawResponse | Promise<RawResponse>;

const MAX_BODY = 16 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, out: RawResponse): void {
  if (out.reset) {
    res.socket?.destroy();
    return;
  }
  if (out.hang) return;
  const write = (): void => {
    const first = typeof out.body === 'string' ? out.body.charCodeAt(0) : out.body[0];
    const isJson = first === 0x7b || first === 0x5b;
    res.writeHead(out.status, {
      'content-type': isJson ? 'application/json' : 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(out.body),
      ...out.headers,
    });
    res.end(out.body);
  };
  if (out.delayMs !== undefined && out.delayMs > 0) setTimeout(write, out.delayMs);
  else write();
}

/** A plain node:http server (keep-alive on) that hands each request to `handler`. */
export function createRawServer(handler: RawHandler, onError: (err: unknown) => void): Server {
  const server = createServer({ keepAlive: true }, (req, res) => {
    void (async () => {
      try {
        const rawBody = req.method === 'GET' || req.method === 'HEAD' ? '' : await readBody(req);
        const url = new URL(req.url ?? '/', 'http://sim');
        let body: unknown;
        if (rawBody !== '') {
          try {
            body = JSON.parse(rawBody);
          } catch {
            body = undefined;
          }
        }
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(',') : v;
        const request: SimHttpRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers,
          body,
        };
        send(res, await handler(request, rawBody));
      } catch (err) {
        onError(err);
        if (!res.headersSent)
          send(res, { status: 500, body: '{"code":2,"message":"internal error","details":[]}' });
      }
    })();
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

export function listen(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new AppError(
          err.code === 'EADDRINUSE' ? 'port_in_use' : 'listen_failed',
          `cannot listen on ${host}:${port}: ${err.message}`,
          {
            cause: err,
          },
        ),
      ),
    );
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      const addr = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve(`http://${shownHost}:${addr.port}`);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
