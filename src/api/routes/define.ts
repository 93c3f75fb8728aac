import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  onRequestAsyncHookHandler,
} from 'fastify';
import type { BlockReader } from '../../store/readers/blocks.js';
import type { DictReader } from '../../store/readers/dicts.js';
import type { EvmTxReader } from '../../store/readers/evm-txs.js';
import type { EvmInternalTxReader } from '../../store/readers/evm-internal-txs.js';
import type { RichListReader } from '../../store/readers/rich-list.js';
import type { HealthReader } from '../../store/readers/health.js';
import type { NftCollectionReader } from '../../store/readers/nft-collections.js';
import type { NftTokenReader } from '../../store/readers/nft-tokens.js';
import type { NftPages } from '../../store/readers/nft-pages.js';
import type { TxReader } from '../../store/readers/txs.js';
import type { BodyPool } from '../body-pool.js';
import type { ResponseCache } from '../cache.js';
import { methodNotAllowed } from '../errors.js';
import type { ApiOptions } from '../options.js';
import { joinJson, type JsonList } from '../render.js';

/** Everything a route file needs, passed explicitly. */
export interface RouteDeps {
  options: ApiOptions;
  cache: ResponseCache;
  /** Memory for list pages, reused once each answer is sent. */
  bodies: BodyPool;
  readers: {
    blocks: BlockReader;
    txs: TxReader;
    evmTxs: EvmTxReader;
    evmInternalTxs: EvmInternalTxReader;
    richList: RichListReader;
    dicts: DictReader;
    health: HealthReader;
    nftCollections: NftCollectionReader;
    nftTokens: NftTokenReader;
    /** NFT answers held while the NFT tables' version is unchanged. */
    nftPages: NftPages;
  };
}

export type Query = Readonly<Record<string, string | undefined>> & { msgs?: readonly string[] };
export type Params = Readonly<Record<string, string>>;

/** A route without path parameters or query string. */
type NoFields = TObject<Record<never, never>>;

/**
 * A JSON route. Its `params` and `querystring` schemas (the ones OpenAPI publishes) type what the
 * handler receives: the query string as the validator passed it, the path parameters by position.
 */
export interface JsonRoute<
  P extends TObject<TProperties> = NoFields,
  Q extends TObject<TProperties> = NoFields,
> {
  url: string;
  /** Response cache TTL in seconds (docs/api.md §1.1); undefined = never cached. */
  ttlSeconds?: number;
  schema: Omit<FastifySchema, 'params' | 'querystring'> & { params?: P; querystring?: Q };
  /** Runs before the parameters are validated: a route this configuration does not serve throws here. */
  onRequest?: onRequestAsyncHookHandler;
  /** Produces the JSON body (text, bytes, or a list page's parts); throws typed errors for 4xx/5xx. */
  handler(input: {
    query: Static<Q>;
    params: Static<P>;
    request: FastifyRequest;
  }): Promise<string | Buffer | JsonList>;
}

/**
 * GET (+HEAD) route answering a JSON text, through the response cache when it has a TTL;
 * every other method the server accepts (app.supportedMethods) answers 405 JSON on the same
 * path, like the reference, with `Allow: GET, HEAD`.
 */
export function jsonRoute<
  P extends TObject<TProperties> = NoFields,
  Q extends TObject<TProperties> = NoFields,
>(app: FastifyInstance, deps: RouteDeps, route: JsonRoute<P, Q>): void {
  const rawParams = rawParamReader(route.url, route.schema.params);
  const options = { schema: route.schema, ...(route.onRequest ? { onRequest: route.onRequest } : {}) };
  app.get(route.url, options, async (request: FastifyRequest, reply: FastifyReply) => {
    // The validator has checked the query string against route.schema.querystring, and
    // rawParamReader has checked at registration that the URL holds every schema parameter.
    const input = { query: request.query as Static<Q>, params: rawParams(request) as Static<P>, request };
    const produce = async () => {
      const body = await route.handler(input);
      return typeof body === 'string' || Buffer.isBuffer(body) ? body : joinJson(body, deps.bodies.take);
    };
    const body =
      route.ttlSeconds === undefined
        ? await produce()
        : await deps.cache.serve(request, reply, route.ttlSeconds, produce);
    // Node is done with the body once the answer is finished (handed to the socket); an aborted
    // answer's memory is left to the garbage collector.
    if (Buffer.isBuffer(body)) reply.raw.once('finish', () => deps.bodies.release(body));
    void reply.header('content-type', 'application/json');
    return body;
  });
  registerOtherMethods(app, route.url);
}

/** Every method but GET and HEAD answers 405 JSON with `Allow: GET, HEAD`, like the reference. */
export function registerOtherMethods(app: FastifyInstance, url: string): void {
  app.route({
    method: app.supportedMethods.filter((m) => m !== 'GET' && m !== 'HEAD'),
    url,
    schema: { hide: true },
    handler: async (_request, reply) => {
      void reply.header('allow', 'GET, HEAD');
      throw methodNotAllowed();
    },
  });
}

/**
 * Path parameters as sent, NOT percent-decoded (docs/api.md §1.2, like the reference's router):
 * `/txs/by_height/%31` is the height text "%31", not 1. Read by segment position, so each one is
 * a string; the URL's parameters must be exactly the schema's (checked here, once).
 */
function rawParamReader(
  template: string,
  schema: TObject<TProperties> | undefined,
): (request: FastifyRequest) => Params {
  const positions = template
    .split('/')
    .flatMap((segment, index) => (segment.startsWith(':') ? [[segment.slice(1), index] as const] : []));
  const urlNames = positions.map(([name]) => name).sort();
  const schemaNames = Object.keys(schema?.properties ?? {}).sort();
  if (urlNames.join('/') !== schemaNames.join('/')) {
    throw new Error(
      `route ${template}: path parameters ${urlNames.join(', ')} but schema ${schemaNames.join(', ')}`,
    );
  }
  if (positions.length === 0) return () => ({});
  return (request) => {
    const segments = (request.url.split('?', 1)[0] ?? '').split('/');
    return Object.fromEntries(positions.map(([name, index]) => [name, segments[index] ?? '']));
  };
}
