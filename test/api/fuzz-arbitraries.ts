import fc from 'fast-check';

/**
 * Generators for the API fuzz (fuzz.test.ts): hostile values for every kind of parameter, URLs
 * built from the served OpenAPI document's routes, odd methods and headers, and raw HTTP/1.1
 * requests for what `app.inject` cannot send (bad bytes, huge headers, CONNECT, lower-case methods).
 */

export interface DocumentedRoute {
  /** OpenAPI template, e.g. /indexer/tx/v1/txs/by_height/{height}. */
  template: string;
  pathParams: string[];
  queryParams: string[];
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] } | undefined>>;
}

/** Every GET operation of the served document with its path and query parameter names. */
export function documentedRoutes(doc: OpenApiDoc): DocumentedRoute[] {
  return Object.entries(doc.paths).flatMap(([template, item]) => {
    const get = item.get;
    if (!get) return [];
    const params = get.parameters ?? [];
    return [
      {
        template,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
      },
    ];
  });
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const INT64_EDGES = [
  '-9223372036854775809',
  '-9223372036854775808',
  '9223372036854775807',
  '9223372036854775808',
  '9007199254740991',
  '9007199254740992',
  '18446744073709551616',
];

const controlChars = fc
  .array(fc.integer({ min: 0, max: 31 }), { minLength: 1, maxLength: 6 })
  .map((codes) => String.fromCharCode(...codes));

/** Short hostile strings: NUL and control characters, int64 edges, JSON, traversal, injection. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 30 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
  { arbitrary: controlChars, weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '',
      '\u0000',
      'a\u0000b',
      'cosmos.bank.v1beta1.MsgSend\u0000',
      '%00',
      '-1',
      '0',
      '+7',
      '007',
      '1e21',
      'NaN',
      '0x',
      '0X1',
      '0x1',
      'true',
      '{}',
      '[]',
      'null',
      '../../etc/passwd',
      '%zz',
      '%',
      '+',
      ' ',
      "'; DROP TABLE tx; --",
      'init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq',
      '\uFFFF',
      '\uD800',
      ...INT64_EDGES,
    ),
    weight: 4,
  },
  { arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String), weight: 2 },
  { arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 80 }), weight: 2 },
  { arbitrary: fc.string({ minLength: 1000, maxLength: 4000 }), weight: 1 },
);

/** `pagination.key`: valid and broken base64 of integers, JSON cursors with any values, junk. */
export const paginationKey: fc.Arbitrary<string> = fc.oneof(
  hostileText,
  fc.jsonValue({ maxDepth: 2 }).map((v) => b64(JSON.stringify(v) ?? 'null')),
  fc
    .record(
      {
        sequence: fc.jsonValue({ maxDepth: 1 }),
        height: fc.jsonValue({ maxDepth: 1 }),
        token_id: hostileText,
      },
      { requiredKeys: [] },
    )
    .map((cursor) => b64(JSON.stringify(cursor))),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => b64(n.toString())),
  fc.string({ maxLength: 20 }).map((s) => b64(s).replace(/=+$/, '')),
  fc.string({ unit: 'binary', maxLength: 20 }).map((s) => ` ${b64(s)}`),
);

const numberText = fc.oneof(
  hostileText,
  fc.integer({ min: -5, max: 1100 }).map(String),
  fc.constantFrom(...INT64_EDGES, '1000', '1001', '10000', '10001'),
);
const boolText = fc.oneof(
  fc.constantFrom('true', 'false', '1', '0', 't', 'F', 'TRUE', 'True', ''),
  hostileText,
);

/** A value fit for the parameter's name (pagination, flags, msgs), else any hostile text. */
export function valueFor(name: string): fc.Arbitrary<string> {
  if (name === 'pagination.key') return paginationKey;
  if (name === 'pagination.limit' || name === 'pagination.offset') return numberText;
  if (name.startsWith('pagination.') || name === 'is_signer') return boolText;
  if (name === 'msgs') {
    return fc.oneof(
      hostileText,
      fc.constantFrom('cosmos.bank.v1beta1.MsgSend', '/initia.move.v1.MsgExecute', 'a,b,,', ','),
    );
  }
  return hostileText;
}

const UNRESERVED_RAW = /[A-Za-z0-9\-._~!$'()*,;:@]/;

/**
 * Percent-encodes the UTF-8 bytes of text, leaving some characters raw (chosen per character),
 * so both encoded and raw forms of `%`, `+`, `&`, `=` and friends reach the server.
 */
export function mixedEncode(text: string, keepRaw: (index: number) => boolean, inQuery: boolean): string {
  let out = '';
  let index = 0;
  for (const ch of text) {
    const rawOk = UNRESERVED_RAW.test(ch) || (inQuery && /[%+/?=&]/.test(ch)) || (!inQuery && ch === '%');
    if (rawOk && keepRaw(index)) out += ch;
    else
      for (const byte of Buffer.from(ch, 'utf8'))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    index += 1;
  }
  return out;
}

const encoded = (value: fc.Arbitrary<string>, inQuery: boolean) =>
  fc
    .tuple(value, fc.integer({ min: 0, max: 3 }))
    .map(([text, mode]) => mixedEncode(text, (i) => mode === 0 || (mode === 1 && i % 2 === 0), inQuery));

/** A path and query built from one documented route, with hostile path and query values. */
export function documentedUrl(route: DocumentedRoute): fc.Arbitrary<string> {
  const pathValues = fc.tuple(...route.pathParams.map(() => encoded(hostileText, false)));
  const names = [...route.queryParams, 'msgs', 'unknown.param'];
  const query = fc.array(
    fc.constantFrom(...names).chain((name) => encoded(valueFor(name), true).map((v) => [name, v] as const)),
    { maxLength: 6 },
  );
  const decorations = fc.record({
    upperCase: fc.boolean(),
    trailingSlash: fc.boolean(),
    rawQueryTail: fc.constantFrom('', '&', '&&=', '&=x', '&%', '&msgs', '#frag'),
  });
  return fc.tuple(pathValues, query, decorations).map(([values, pairs, deco]) => {
    let path = route.template;
    route.pathParams.forEach((name, i) => {
      path = path.replace(`{${name}}`, values[i] ?? '');
    });
    if (deco.upperCase) path = path.replace(/^\/[a-z/]+/, (prefix) => prefix.toUpperCase());
    if (deco.trailingSlash) path += '/';
    const queryText = pairs.map(([n, v]) => `${encodeURIComponent(n)}=${v}`).join('&');
    return `${path}${queryText || deco.rawQueryTail ? '?' : ''}${queryText}${deco.rawQueryTail}`;
  });
}

/** Paths no template describes: random segments, dot segments, very long paths. */
export const strayUrl: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(encoded(hostileText, false), { minLength: 1, maxLength: 6 })
    .map((segments) => `/${segments.join('/')}`),
  fc.constantFrom(
    '/',
    '//',
    '/indexer',
    '/indexer/tx/v1/txs/by_account',
    '/indexer/tx/v1/txs/by_height/',
    '/indexer/nft/v1/tokens/by_account',
    '/indexer/richlist/v1',
    '/swagger',
    '/./health',
    '/health/..',
    '/%2e%2e/health',
  ),
  fc
    .integer({ min: 2_000, max: 12_000 })
    .map((n) => `/indexer/tx/v1/txs/${'a'.repeat(n)}?pagination.key=${'A'.repeat(n % 3000)}`),
);

export const oddMethod = fc.oneof(
  { arbitrary: fc.constant('GET'), weight: 6 },
  { arbitrary: fc.constant('HEAD'), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      'POST',
      'PUT',
      'DELETE',
      'PATCH',
      'OPTIONS',
      'TRACE',
      'QUERY',
      'PROPFIND',
      'MKCOL',
    ),
    weight: 2,
  },
);

const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.constantFrom(
    'no-store',
    'no-cache',
    'application/json',
    'text/xml',
    '*/*',
    'https://a.example.com',
    'gzip',
    'br',
    'br;q=0, gzip;q=NaN',
    'identity;q=0',
    '*;q=0',
    'deflate, zstd',
  ),
);

/** Request headers for app.inject: caching and content headers with odd values, random names. */
export const injectHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'cache-control',
      'origin',
      'content-type',
      'accept',
      'accept-encoding',
      'x-forwarded-for',
      'if-none-match',
      'range',
    ),
    fc
      .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-'), minLength: 1, maxLength: 12 })
      .map((n) => `x-${n}`),
  ),
  headerValue,
  { maxKeys: 4 },
);

/** One raw HTTP/1.1 request: the parts a test needs to judge the answer, and its bytes. */
export interface RawRequest {
  method: string;
  target: string;
  bytes: Buffer;
}

const latin1 = (codes: number[]) => Buffer.from(codes).toString('latin1');
const TOKEN = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_!#$%&*+.^`|~0123456789',
);

const rawMethod = fc.oneof(
  { arbitrary: fc.constantFrom('GET', 'HEAD'), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      'get',
      'head',
      'Get',
      'FOO',
      'CONNECT',
      'TRACE',
      'PROPFIND',
      'M-SEARCH',
      'PRI',
      'POST',
    ),
    weight: 4,
  },
  { arbitrary: fc.string({ unit: TOKEN, minLength: 1, maxLength: 12 }), weight: 2 },
);

/** Request targets with bytes a client library would never send: non-ASCII, controls, huge. */
const rawTarget = (urls: fc.Arbitrary<string>) =>
  fc.oneof(
    { arbitrary: urls, weight: 4 },
    {
      arbitrary: fc
        .array(fc.integer({ min: 0x21, max: 0xff }), { minLength: 1, maxLength: 40 })
        .map((codes) => `/indexer/tx/v1/txs/${latin1(codes)}`),
      weight: 2,
    },
    {
      arbitrary: fc
        .array(fc.integer({ min: 0x00, max: 0x1f }), { minLength: 1, maxLength: 3 })
        .map((codes) => `/health?x=${latin1(codes.filter((c) => c !== 0x0a && c !== 0x0d))}`),
      weight: 1,
    },
    { arbitrary: fc.constantFrom('*', 'http://localhost/health', 'example.com:443', '/health'), weight: 1 },
    {
      arbitrary: fc.integer({ min: 15_000, max: 40_000 }).map((n) => `/health?pad=${'p'.repeat(n)}`),
      weight: 1,
    },
  );

const rawHeaderLine = fc.oneof(
  fc
    .tuple(
      fc.string({ unit: TOKEN, minLength: 1, maxLength: 16 }),
      fc.array(fc.integer({ min: 0x20, max: 0xff }), { maxLength: 40 }),
    )
    .map(([name, value]) => `X-${name}: ${latin1(value)}`),
  fc.integer({ min: 17_000, max: 30_000 }).map((n) => `X-Big: ${'b'.repeat(n)}`),
  fc.constantFrom(
    'X Bad Name: 1',
    'Content-Length: abc',
    'Transfer-Encoding: chunked',
    'Expect: 100-continue',
    'Host: second',
  ),
);

/** Raw requests; `Connection: close` so the answer is complete when the server closes. */
export function rawRequest(urls: fc.Arbitrary<string>): fc.Arbitrary<RawRequest> {
  return fc
    .record({
      method: rawMethod,
      target: rawTarget(urls),
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9'),
      host: fc.constantFrom(true, true, true, false),
      headers: fc.array(rawHeaderLine, { maxLength: 3 }),
      body: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
    })
    .map(({ method, target, version, host, headers, body }) => {
      const lines = [`${method} ${target} ${version}`];
      if (host) lines.push('Host: localhost');
      lines.push(...headers.filter((h) => !(body !== undefined && h.startsWith('Transfer-Encoding'))));
      // A chunked request without a body still ends: the zero-size last chunk.
      const chunked = headers.includes('Transfer-Encoding: chunked') && body === undefined;
      const payload = body ?? (chunked ? '0\r\n\r\n' : '');
      if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(payload)}`);
      lines.push('Connection: close');
      const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
      return { method, target, bytes: Buffer.concat([head, Buffer.from(payload, 'utf8')]) };
    });
}
