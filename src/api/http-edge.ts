import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { GrpcCode, type ErrorBody } from './errors.js';

/**
 * The HTTP edge: answers that Node's parser or Fastify produce before (or instead of) routing,
 * brought under the JSON error model `{code,message,details}` (docs/api.md §0.1): malformed requests,
 * oversized headers, unknown methods, CONNECT, odd `Expect` values and the shutdown window.
 * Node never builds a request object for these, so they are written as raw HTTP/1.1 answers.
 */

/** Limits of the edge (docs/operator.md "Limits"); the header limit also bounds the URL (request line). */
export interface EdgeLimits {
  /** Request line + headers, bytes (Node's `maxHeaderSize`); past it: 431. */
  maxHeaderBytes: number;
  /** Request body, bytes; no route takes a body, so past it a body is refused with 413. */
  maxBodyBytes: number;
}

export const DEFAULT_EDGE_LIMITS: EdgeLimits = { maxHeaderBytes: 16_384, maxBodyBytes: 65_536 };

/** `http.createServer` options that apply the edge limits (docs/operator.md "Limits"). */
export function edgeServerOptions(limits: EdgeLimits & { requestTimeoutMs: number }): http.ServerOptions {
  return {
    maxHeaderSize: limits.maxHeaderBytes,
    // Checked in JSON by the request edge (Node's own answer has no body).
    requireHostHeader: false,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks request timeouts on this interval (default 30 s): keep it below the timeout.
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(limits.requestTimeoutMs / 2))),
  };
}

/** Node's `clientError` error: an llhttp code and the bytes that failed to parse. */
interface ConnectionError extends Error {
  code?: string | undefined;
  rawPacket?: unknown;
}

const rawStart = (err: ConnectionError, length: number): string =>
  Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, length).toString('latin1') : '';

/** RFC 9110 `token`: a method the parser refused but that is well-formed is "not implemented". */
const METHOD_TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ /;

interface RawAnswer {
  status: number;
  body: ErrorBody;
}

function classify(err: ConnectionError, limits: EdgeLimits): RawAnswer {
  const answer = (status: number, code: number, message: string): RawAnswer => ({
    status,
    body: { code, message, details: [] },
  });
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return answer(
      431,
      GrpcCode.invalidArgument,
      `Request Header Fields Too Large: the request line and headers may hold at most ${limits.maxHeaderBytes} bytes`,
    );
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return answer(408, GrpcCode.invalidArgument, 'Request Timeout: the request did not arrive in time');
  }
  const head = rawStart(err, 64);
  if (err.code === 'HPE_INVALID_METHOD' && METHOD_TOKEN_RE.test(head)) {
    // Methods are case-sensitive (RFC 9110 §9.1): `get` is an unknown method, like `FOO`.
    return answer(501, GrpcCode.unimplemented, 'Not Implemented: unknown request method');
  }
  if (err.code === 'HPE_INVALID_URL' || err.code === 'HPE_INVALID_CHARACTER') {
    return answer(
      400,
      GrpcCode.invalidArgument,
      'Bad Request: the request target holds bytes that are not allowed (percent-encode non-ASCII characters)',
    );
  }
  return answer(
    400,
    GrpcCode.invalidArgument,
    `Bad Request: malformed HTTP request (${err.code ?? 'unknown'})`,
  );
}

/**
 * Writes a complete HTTP/1.1 error answer on a socket no request object exists for, then closes it
 * (after the answer drained, or after LINGER_MS at the latest).
 */
export function writeRawError(socket: Socket, answer: RawAnswer, headRequest: boolean): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(answer.body);
  const reason = http.STATUS_CODES[answer.status] ?? 'Error';
  const headers =
    `HTTP/1.1 ${answer.status} ${reason}\r\n` +
    `Content-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    (answer.status === 405 ? 'Allow: GET, HEAD\r\n' : '') +
    `Connection: close\r\n\r\n`;
  socket.end(headRequest ? headers : headers + body);
  // end() lets the answer drain; a client that never closes its side is cut off shortly after.
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

const LINGER_MS = 5_000;

/** The response a kept-alive socket is writing, as Node records it on the socket. */
type ServerSocket = Socket & { _httpMessage?: { _headerSent?: boolean } | null };

/**
 * Fastify's `clientErrorHandler`: every parser-level failure gets a JSON answer (none on a reset).
 * An error on a socket whose current response has started (a pipelined request that fails to
 * parse, a timeout) must not write into the middle of that response: like Node's own handler,
 * the connection is closed without an answer, and the client sees a closed connection, never a
 * corrupted body.
 */
export function createClientErrorHandler(limits: EdgeLimits) {
  return (err: ConnectionError, socket: ServerSocket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket._httpMessage?._headerSent) {
      socket.destroy();
      return;
    }
    const headRequest = rawStart(err, 5) === 'HEAD ';
    writeRawError(socket, classify(err, limits), headRequest);
  };
}

/**
 * Server-level events Fastify leaves to Node's defaults: CONNECT (Node would close the socket
 * silently) answers 405 JSON; an `Expect` other than 100-continue (Node would answer 417 with no
 * body) is ignored, as RFC 9110 §10.1.1 allows, and the request is served normally.
 */
export function installServerEdge(app: FastifyInstance): void {
  answerConnect(app.server);
  app.server.on('checkExpectation', (request: http.IncomingMessage, response: http.ServerResponse) => {
    app.server.emit('request', request, response);
  });
}

function answerConnect(server: http.Server): void {
  server.on('connect', (_request: http.IncomingMessage, socket: Socket) => {
    writeRawError(
      socket,
      {
        status: 405,
        body: { code: GrpcCode.unimplemented, message: 'Method Not Allowed: CONNECT', details: [] },
      },
      false,
    );
  });
}

/**
 * The same JSON answers for a plain `http.Server` outside Fastify (the `indexer` command's
 * /health and /metrics port): parser errors and CONNECT.
 */
export function installPlainServerEdge(server: http.Server, limits: EdgeLimits = DEFAULT_EDGE_LIMITS): void {
  server.on('clientError', createClientErrorHandler(limits));
  answerConnect(server);
}

const BODYLESS = new Set(['GET', 'HEAD']);

function sendEdgeError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  const body: ErrorBody = { code, message, details: [] };
  return reply
    .code(status)
    .header('connection', 'close')
    .header('content-type', 'application/json')
    .send(Buffer.from(JSON.stringify(body)));
}

/**
 * What every request meets before routing, in one hook:
 * - while the server closes, requests that still arrive (on a kept-alive connection) get 503 JSON
 *   and `Connection: close`, not Fastify's `{"error":…,"statusCode":503}` (needs
 *   `return503OnClosing: false`); a stream request gets its connection closed with no answer;
 * - HTTP/1.1 without Host is a 400 (RFC 9112 §3.2): Node's own check answers with an empty body,
 *   so it is turned off (`requireHostHeader: false`) and made here;
 * - no route reads a body: whatever content type the client claims (blank, malformed, unknown,
 *   missing where Fastify insists on one, as for QUERY), the body is opaque bytes, discarded
 *   unparsed up to `maxBodyBytes` (then 413), so a POST gets its 405, never a 415.
 */
/** A stream route's path (docs/stream.md §1, docs/chains.md §4.4); `url` may carry a query. */
export function isStreamPath(url: string): boolean {
  return url.split('?', 1)[0]!.toLowerCase().startsWith('/indexer/stream/');
}

export function installRequestEdge(app: FastifyInstance, limits: EdgeLimits): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      // An EventSource given any answer but 200 gives up for good: a stream request (a client
      // reconnecting after the shutdown close) is dropped instead, so it retries and finds the
      // restarted process (docs/stream.md §3).
      if (isStreamPath(request.url)) {
        reply.hijack();
        // Pipelined behind an answer still being written, the connection goes once that one is out.
        const res = reply.raw;
        if (res.socket) res.socket.destroy();
        else res.once('socket', (socket) => socket.destroy());
        return reply;
      }
      return sendEdgeError(
        reply,
        503,
        GrpcCode.unavailable,
        'Service Unavailable: the server is shutting down',
      );
    }
    const raw = request.raw;
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1 && raw.headers.host === undefined) {
      return sendEdgeError(
        reply,
        400,
        GrpcCode.invalidArgument,
        'Bad Request: an HTTP/1.1 request needs a Host header',
      );
    }
    if (request.headers['content-type'] !== undefined || !BODYLESS.has(request.method)) {
      request.headers['content-type'] = 'application/octet-stream';
    }
    return undefined;
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: limits.maxBodyBytes },
    (_request, _body, done) => {
      done(null, undefined);
    },
  );
}
