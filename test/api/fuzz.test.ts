import net from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator, type IndexedSimulator } from '../helpers/ingest.js';
import {
  documentedRoutes,
  documentedUrl,
  injectHeaders,
  oddMethod,
  rawRequest,
  strayUrl,
  type DocumentedRoute,
} from './fuzz-arbitraries.js';
import { createHarness, openApiValidators, type Harness } from './harness.js';

/**
 * Property-based fuzz of the whole HTTP surface (issue 12): every route and parameter the served
 * OpenAPI document lists (so routes added later are covered without touching this file), with
 * hostile values, odd methods and headers through app.inject, and raw HTTP/1.1 requests through a
 * listening server. Every answer must be JSON `{code,message,details}` (no body on HEAD), valid
 * against the document when 200, and its status one of ALLOWED: never a 500.
 *
 * Reproducible: FUZZ_SEED (default below) fixes the cases; FUZZ_RUNS / FUZZ_RAW_RUNS set how many in
 * all, shared by the stores in the run (`share`; the soak raises them). A failure prints the seed
 * and the shrunk counterexample.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);
const STREAM_ROUTE = /^\/indexer\/stream\//;
const RAW_RUNS = Number(process.env.FUZZ_RAW_RUNS ?? 1000);
const FACTORIES = testDbFactories();

/**
 * Each store takes an equal share of the runs under a seed of its own (store i: SEED + i), so a run
 * with both stores sends RUNS distinct cases in all rather than the same cases twice: what differs
 * by store (driver, parameter encoding, error mapping) meets half of them, each case once.
 */
function share(runs: number, store: number): { seed: number; numRuns: number } {
  return { seed: SEED + store, numRuns: Math.ceil(runs / FACTORIES.length) };
}
const ALLOWED = new Set([200, 400, 404, 405, 413, 429, 431, 501]);
/** 200 answers that are not JSON by design: Prometheus text and the interactive reference. */
const NON_JSON_200 = /^\/(metrics|swagger\/(?!doc\.json))/i;
/** The live page at `/`, as the router resolves a path (`//`, `/health/..`, and `*` reach it). */
function isLivePage(path: string): boolean {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '' && segment !== '.') segments.push(segment);
  }
  return segments.length === 0 || (segments.length === 1 && segments[0] === '*');
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function judge(method: string, url: string, answer: Answer, check: (url: string, json: unknown) => void) {
  const where = `${method} ${url.slice(0, 300)} → ${answer.status} ${answer.body.slice(0, 300)}`;
  const path = url.split('?', 1)[0] ?? '';
  // The one redirect: /swagger → /swagger/index.html (docs/api.md §4.8).
  if (answer.status === 301 && /^\/swagger\/?$/i.test(path)) return;
  expect(ALLOWED.has(answer.status), where).toBe(true);
  if (method === 'HEAD') {
    expect(answer.body, where).toBe('');
    return;
  }
  if (answer.status === 200 && (NON_JSON_200.test(path) || isLivePage(path))) return;
  expect(answer.contentType, where).toMatch(/^application\/json/);
  const json = JSON.parse(answer.body) as Record<string, unknown>;
  if (answer.status === 200) {
    // Dot segments are resolved before routing (`/evm-txs/.` is the list): judge the same path.
    if (method === 'GET') check(new URL(url, 'http://localhost').pathname, json);
    return;
  }
  expect(Object.keys(json), where).toEqual(['code', 'message', 'details']);
  expect(Number.isInteger(json.code), where).toBe(true);
  expect(typeof json.message, where).toBe('string');
  expect(json.details, where).toEqual([]);
}

/** The body as text, undoing the compression the client asked for (accept-encoding is fuzzed). */
function decode(payload: Buffer, encoding: unknown): string {
  if (payload.length === 0) return '';
  if (encoding === 'br') return brotliDecompressSync(payload).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(payload).toString('utf8');
  if (encoding === 'deflate') return inflateSync(payload).toString('utf8');
  expect(encoding, 'content-encoding').toBeUndefined();
  return payload.toString('utf8');
}

/**
 * Sends raw bytes and collects the whole answer until the server closes (every request says
 * `Connection: close`). No half-close: Node drops pending answers when the client ends first.
 */
function sendRaw(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // The server may close before reading everything we sent (431, 400): keep what came back.
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') resolve(Buffer.concat(chunks));
      else reject(err);
    });
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.write(bytes);
  });
}

/** Parses one HTTP/1.1 answer (skipping interim 1xx); decodes a chunked body. */
function parseRaw(raw: Buffer): Answer {
  let text = raw.toString('latin1');
  while (/^HTTP\/1\.1 1\d\d /.test(text)) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const end = text.indexOf('\r\n\r\n');
  expect(end, `no complete answer: ${JSON.stringify(text.slice(0, 200))}`).toBeGreaterThan(0);
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
  expect(status, statusLine).not.toBeNull();
  const headers = new Map(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  let body = text.slice(end + 4);
  if (headers.get('transfer-encoding') === 'chunked') {
    let decoded = '';
    for (;;) {
      const lineEnd = body.indexOf('\r\n');
      const size = parseInt(body.slice(0, lineEnd), 16);
      if (!(size > 0)) break;
      decoded += body.slice(lineEnd + 2, lineEnd + 2 + size);
      body = body.slice(lineEnd + 2 + size + 2);
    }
    body = decoded;
  }
  return {
    status: Number(status?.[1]),
    contentType: headers.get('content-type') ?? '',
    body: Buffer.from(body, 'latin1').toString('utf8'),
  };
}

describe.each(FACTORIES)('API fuzz over the OpenAPI document on $name', (factory) => {
  const store = FACTORIES.indexOf(factory);
  let h: Harness;
  let indexed: IndexedSimulator | undefined;
  let routes: DocumentedRoute[];
  let streamRoutes: DocumentedRoute[];
  let check: (url: string, json: unknown) => void;
  let urls: fc.Arbitrary<string>;
  const injected = share(RUNS, store);
  const streamed = share(Math.ceil(RUNS / 10), store);
  const raw = share(RAW_RUNS, store);

  beforeAll(async () => {
    // Real ingested data (EVM: Cosmos and EVM tx routes both hold rows), response cache on as in
    // production, so cached and uncached paths are both exercised.
    const chainId = 'fuzz-evm-1';
    h = await createHarness(factory, {
      vm: 'evm',
      blocks: 0,
      seed: false,
      env: { CHAIN_ID: chainId, API_CACHE: 'true' },
    });
    indexed = await indexSimulator({ db: h.db, vm: 'evm', head: 6, txsPerBlock: '1-4', sim: { chainId } });
    const validators = await openApiValidators(h.app);
    const documented = documentedRoutes(validators.doc as Parameters<typeof documentedRoutes>[0]);
    // A valid GET on a stream route never ends (it is a live stream), so those get their own case.
    routes = documented.filter((r) => !STREAM_ROUTE.test(r.template));
    streamRoutes = documented.filter((r) => STREAM_ROUTE.test(r.template));
    check = validators.check;
    urls = fc.oneof(
      { arbitrary: fc.constantFrom(...routes).chain(documentedUrl), weight: 5 },
      { arbitrary: strayUrl, weight: 1 },
    );
  }, 180_000);
  afterAll(async () => {
    await indexed?.close();
    await h?.dispose();
  });

  it('documents the routes it fuzzes, parameters included', () => {
    const templates = routes.map((r) => r.template);
    expect(templates).toEqual(
      expect.arrayContaining([
        '/indexer/tx/v1/txs',
        '/indexer/tx/v1/txs/by_account/{account}',
        '/indexer/tx/v1/evm-txs/by_height/{height}',
      ]),
    );
    const txs = routes.find((r) => r.template === '/indexer/tx/v1/txs');
    expect(txs?.queryParams).toEqual(expect.arrayContaining(['pagination.key', 'pagination.offset', 'msgs']));
  });

  it(`answers ${injected.numRuns} hostile requests (app.inject) with JSON errors, never a 500`, async () => {
    const cases = fc.record({
      method: oddMethod,
      url: urls,
      headers: injectHeaders,
      body: fc.option(fc.string({ maxLength: 100 }), { nil: undefined }),
    });
    const statuses = new Map<number, number>();
    let rowsServed = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ({ method, url, headers, body }) => {
        const withBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
        const res = await h.app.inject({
          method: method as 'GET',
          url,
          headers,
          ...(withBody ? { payload: body } : {}),
        });
        const text = decode(res.rawPayload, res.headers['content-encoding']);
        judge(
          method,
          url,
          { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: text },
          check,
        );
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 200 && /"(txs|blocks)":\[\{/.test(text)) rowsServed += 1;
      }),
      injected,
    );
    process.stdout.write(
      `fuzz (inject, seed ${injected.seed}): ${JSON.stringify(Object.fromEntries(statuses))}, ${rowsServed} pages with rows\n`,
    );
    // The cases reach the handlers and the data, not only the parameter checks.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(injected.numRuns / 10);
    expect(rowsServed).toBeGreaterThan(injected.numRuns / 50);
  }, 600_000);

  it('answers hostile stream requests before any stream opens: a 4xx, or 200 with no body (HEAD)', async () => {
    expect(streamRoutes.map((r) => r.template).sort()).toEqual([
      '/indexer/stream/v1/blocks',
      '/indexer/stream/v1/evm-txs',
      '/indexer/stream/v1/txs',
    ]);
    const cases = fc.record({
      url: fc.constantFrom(...streamRoutes).chain(documentedUrl),
      headers: injectHeaders,
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ url, headers }) => {
        // HEAD runs every parameter check the GET runs, then answers without opening the stream.
        const res = await h.app.inject({ method: 'HEAD', url, headers });
        expect([200, 400, 404, 410, 429, 503], `HEAD ${url}`).toContain(res.statusCode);
        expect(res.body).toBe('');
      }),
      streamed,
    );
  }, 600_000);

  it(`answers ${raw.numRuns} raw HTTP/1.1 requests (bad bytes, huge headers, odd methods) in JSON`, async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as net.AddressInfo).port;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(rawRequest(urls), async (request) => {
        const answer = parseRaw(await sendRaw(port, request.bytes));
        judge(request.method, request.target, answer, () => undefined);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      }),
      raw,
    );
    process.stdout.write(`fuzz (raw, seed ${raw.seed}): ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    // Parser-level answers were among them, not only routed ones.
    for (const status of [200, 400, 431, 501]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
