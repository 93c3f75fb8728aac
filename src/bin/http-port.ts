import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  edgeServerOptions,
  installPlainServerEdge,
  isStreamPath,
  type EdgeLimits,
} from '../api/http-edge.js';
import { InputError } from '../shared/errors.js';
import type { MetricsSource } from '../shared/metrics.js';
import { servedWaits, type NodeWaits } from '../shared/node-waits.js';
import type { IngestState } from './ingest-state.js';

type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** The process's one HTTP port: opened before anything else, handed to the API once it exists. */
export interface HttpPort {
  server: http.Server;
  /** `http://host:port` as bound (the address printed is the address listened on). */
  url: string;
  /** From now on requests go to `handler` (the API's router). */
  adopt(handler: RequestHandler): void;
  /** Hands the stream requests that arrived during start-up to the adopted handler, once it is ready. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Listens at once, answering `/health` (alive), `/ready` (503 with the reason until ingest is
 * ready) and `/metrics`, so an orchestrator can tell "alive but waiting for the node" from
 * "dead". A port that is taken fails here, within a second, with a hint.
 */
export async function openHttpPort(ctx: {
  port: number;
  host: string;
  registry: MetricsSource;
  state: Pick<IngestState, 'readiness'>;
  /** What ingest waits for on the node, added to `/health` (docs/api.md §4.1.1). */
  waits: NodeWaits;
  limits: EdgeLimits & { requestTimeoutMs: number };
}): Promise<HttpPort> {
  // Stream requests wait for the API instead of taking a 503: an EventSource that gets a non-200
  // answer gives up for good, so a client reconnecting across a restart would be lost.
  const parked = new Set<[http.IncomingMessage, http.ServerResponse]>();
  const park: RequestHandler = (req, res) => {
    const entry: [http.IncomingMessage, http.ServerResponse] = [req, res];
    parked.add(entry);
    res.once('close', () => parked.delete(entry));
  };
  let handler: RequestHandler = bootHandler(ctx, park);
  const server = http.createServer(edgeServerOptions(ctx.limits), (req, res) => handler(req, res));
  installPlainServerEdge(server, ctx.limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, ctx.host, ctx.port)));
    server.listen(ctx.port, ctx.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    adopt(next) {
      // The API installs its own edge answers (parser errors, CONNECT) on this server.
      server.removeAllListeners('clientError');
      server.removeAllListeners('connect');
      handler = next;
    },
    release() {
      for (const [req, res] of parked) handler(req, res);
      parked.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [, res] of parked) res.destroy();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  if (err.code === 'EADDRINUSE')
    return new InputError('port_in_use', `${where} is already in use: choose another with --port or PORT`);
  if (err.code === 'EACCES')
    return new InputError('port_denied', `not allowed to listen on ${where}: use a port above 1023`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
    return new InputError('bad_host', `cannot listen on ${where}: no such local address (--host or HOST)`);
  return err;
}

function bootHandler(
  {
    registry,
    state,
    waits,
  }: { registry: MetricsSource; state: Pick<IngestState, 'readiness'>; waits: NodeWaits },
  park: RequestHandler,
): RequestHandler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]!.replace(/\/+$/, '').toLowerCase();
    if (isStreamPath(path)) {
      park(req, res);
    } else if (path === '/metrics') {
      void registry.metrics().then((text) => send(res, req, 200, text, registry.contentType));
    } else if (path === '/health') {
      const waiting = waits.list();
      send(
        res,
        req,
        200,
        JSON.stringify({ status: 'ok', waiting: waiting.length > 0 ? servedWaits(waiting) : undefined }),
      );
    } else if (path === '/ready') {
      const check = state.readiness();
      if (check.ready) send(res, req, 200, '{"status":"ready"}');
      else send(res, req, 503, errorBody(14, check.reason));
    } else {
      send(res, req, 503, errorBody(14, `starting: ${state.readiness().reason ?? 'not ready'}`));
    }
  };
}

function errorBody(code: number, message: string | undefined): string {
  return JSON.stringify({ code, message: message ?? 'not ready', details: [] });
}

function send(
  res: http.ServerResponse,
  req: http.IncomingMessage,
  status: number,
  body: string,
  contentType = 'application/json',
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}
