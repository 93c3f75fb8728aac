import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { installPlainServerEdge } from '../../src/api/http-edge.js';
import { loadApiOptions } from '../../src/api/options.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { gateDb } from './gated-db.js';

/**
 * Issue 12: answers made before routing (Node's parser, server events, shutdown) follow the JSON
 * error model. Real sockets, since app.inject never reaches Node's HTTP parser.
 */
interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Writes bytes on a fresh connection and reads until the server closes it. */
function exchange(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(text) : reject(err),
    );
    socket.on('close', () => resolve(text));
    socket.write(bytes);
  });
}

function parseAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers = new Map(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers.get('content-length') ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    answers.push({ status: Number(statusLine.slice(9, 12)), headers, body });
    rest = rest.slice(end + 4 + body.length);
  }
  expect(rest, 'bytes after the last answer').toBe('');
  return answers;
}

const request = (line: string, headers: string[] = []) =>
  `${line}\r\n${['Host: localhost', ...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`;

describe.each(testDbFactories())('HTTP edge answers (raw sockets) on $name', (factory) => {
  let db: Db;
  let disposeDb: () => Promise<void>;
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    const created = await factory.create();
    db = created.db;
    disposeDb = created.dispose;
  });
  afterAll(async () => {
    await disposeDb?.();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const listen = async (database: Db = db, env: Record<string, string> = {}) => {
    app = await createApiApp({
      options: loadApiOptions({ CHAIN_ID: 'edge-1', VM_TYPE: 'move', API_CACHE: 'false', ...env }),
      db: database,
      logger: silentLogger(),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return (app.server.address() as net.AddressInfo).port;
  };
  const one = async (port: number, bytes: string | Buffer) => {
    const answers = parseAnswers(await exchange(port, bytes));
    expect(answers).toHaveLength(1);
    return answers[0] as RawAnswer;
  };
  const expectJson = (answer: RawAnswer, status: number, code: number, message: RegExp | string) => {
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['code', 'message', 'details']);
    expect(body.code).toBe(code);
    expect(body.message).toMatch(message);
  };

  it('answers parser-level errors in JSON: 431, bad URL bytes, unknown and lower-case methods', async () => {
    const port = await listen();
    const big = await one(port, request('GET /health HTTP/1.1', [`X-Big: ${'a'.repeat(20_000)}`]));
    expectJson(big, 431, 3, 'at most 16384 bytes');
    const longUrl = await one(port, request(`GET /indexer/tx/v1/txs?x=${'u'.repeat(17_000)} HTTP/1.1`));
    expectJson(longUrl, 431, 3, 'at most 16384 bytes');
    const bytes = Buffer.concat([
      Buffer.from('GET /indexer/tx/v1/txs?msgs='),
      Buffer.from([0xc3, 0xa9]),
      Buffer.from(` HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
    ]);
    expectJson(await one(port, bytes), 400, 3, /percent-encode non-ASCII/);
    for (const method of ['get', 'FOO', 'head']) {
      expectJson(await one(port, request(`${method} /health HTTP/1.1`)), 501, 12, /unknown request method/);
    }
    expectJson(
      await one(port, request('GET /health HTTP/1.1', ['X Bad: 1'])),
      400,
      3,
      /malformed HTTP request/,
    );
    expectJson(await one(port, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 3, /Host header/);
  });

  it('sends no body on HEAD, even for errors the parser raises', async () => {
    const port = await listen();
    for (const bytes of [
      request('HEAD /health HTTP/1.1', [`X-Big: ${'a'.repeat(20_000)}`]),
      request('HEAD /nope HTTP/1.1'),
      request('HEAD /indexer/tx/v1/txs/zz HTTP/1.1'),
    ]) {
      const text = await exchange(port, bytes);
      const end = text.indexOf('\r\n\r\n');
      expect(text.slice(0, 9)).toBe('HTTP/1.1 ');
      expect(text.slice(end + 4), text.slice(0, 12)).toBe('');
      expect(text).toMatch(/content-type: application\/json/i);
    }
  });

  it('answers CONNECT, TRACE, PROPFIND and POST bodies of any type with 405 JSON; huge bodies 413', async () => {
    const port = await listen();
    const connect = await one(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectJson(connect, 405, 12, 'Method Not Allowed: CONNECT');
    for (const method of ['TRACE', 'PROPFIND', 'QUERY']) {
      const answer = await one(port, request(`${method} /indexer/tx/v1/txs HTTP/1.1`));
      expectJson(answer, 405, 12, 'Method Not Allowed');
      expect(answer.headers.get('allow')).toBe('GET, HEAD');
    }
    for (const type of ['text/xml', '', 'application/json']) {
      const post = request('POST /indexer/tx/v1/txs HTTP/1.1', [
        `Content-Type: ${type}`,
        'Content-Length: 3',
      ]);
      expectJson(await one(port, `${post}abc`), 405, 12, 'Method Not Allowed');
    }
    const huge = request('POST /health HTTP/1.1', ['Content-Type: x/y', 'Content-Length: 100000']);
    expectJson(await one(port, `${huge}${'b'.repeat(100_000)}`), 413, 3, 'Request body is too large');
    // An Expect other than 100-continue is ignored (Node would answer 417 with no body).
    const expectation = await one(port, request('GET /health HTTP/1.1', ['Expect: teapot']));
    expect(expectation.status).toBe(200);
  });

  it('gives a plain http.Server (the indexer health port) the same JSON parser-level answers', async () => {
    const server = http.createServer((_req, res) => res.end('{}'));
    installPlainServerEdge(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as net.AddressInfo).port;
      expectJson(await one(port, request('get /health HTTP/1.1')), 501, 12, /unknown request method/);
      expectJson(
        await one(port, request('GET /health HTTP/1.1', [`X-Big: ${'a'.repeat(20_000)}`])),
        431,
        3,
        /16384/,
      );
      expectJson(await one(port, 'CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n\r\n'), 405, 12, /CONNECT/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers 408 JSON to a client that does not finish its request in API_REQUEST_TIMEOUT_MS', async () => {
    const port = await listen(db, { API_REQUEST_TIMEOUT_MS: '300' });
    // Headers never end: the server's own timeout ends the exchange.
    expectJson(
      await one(port, 'GET /health HTTP/1.1\r\nHost: localhost\r\n'),
      408,
      3,
      /did not arrive in time/,
    );
  });

  it('honours API_MAX_HEADER_BYTES', async () => {
    const port = await listen(db, { API_MAX_HEADER_BYTES: '4096' });
    expectJson(
      await one(port, request('GET /health HTTP/1.1', [`X-A: ${'a'.repeat(5000)}`])),
      431,
      3,
      /4096 bytes/,
    );
    expect((await one(port, request('GET /health HTTP/1.1', [`X-A: ${'a'.repeat(3000)}`]))).status).toBe(200);
  });

  /** The answers on one kept-alive connection whose second request arrives while the server closes. */
  const duringShutdown = async (second: string): Promise<RawAnswer[]> => {
    const gated = gateDb(db, (sql) => sql.includes('FROM block'));
    const port = await listen(gated.db);
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // The first request holds the database; the server starts closing while it is in flight.
    socket.write('GET /indexer/block/v1/blocks HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await gated.entered;
    const server = app?.server;
    const closing = app?.close();
    app = undefined;
    // Fastify stops listening after its preClose hooks ran, so from here it is shutting down.
    await until(() => server?.listening === false);
    // A second request on the same kept-alive connection arrives during shutdown.
    socket.write(second);
    gated.release();
    await closing;
    await closed;
    return parseAnswers(text);
  };

  it('answers requests that arrive while shutting down with 503 JSON and Connection: close', async () => {
    const answers = await duringShutdown('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(answers.map((a) => a.status)).toEqual([200, 503]);
    const refused = answers[1] as RawAnswer;
    expect(refused.headers.get('connection')).toBe('close');
    expect(JSON.parse(refused.body)).toEqual({
      code: 14,
      message: 'Service Unavailable: the server is shutting down',
      details: [],
    });
  });

  it('closes a stream request that arrives while shutting down with no answer, so an EventSource retries', async () => {
    // Any answer but 200 makes an EventSource give up for good (docs/stream.md §3).
    const answers = await duringShutdown(
      'GET /indexer/stream/v1/blocks HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nLast-Event-ID: 3\r\n\r\n',
    );
    expect(answers.map((a) => a.status)).toEqual([200]);
  });
});

/** Polls a condition on the event loop (no fixed delay): resolves once it holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
