import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InputError } from '../../shared/errors.js';
import { GrpcCode, HttpError } from '../errors.js';
import type { ApiOptions } from '../options.js';
import { parseAccount, parseIsSigner, parseMsgTypes } from '../params.js';
import type { StreamHub } from '../stream/hub.js';
import type { StreamMetrics } from '../stream/metrics.js';
import { parseResumePoint, planBacklog, type Backlog } from '../stream/resume.js';
import {
  createSubscriber,
  type StreamFilter,
  type StreamRoute,
  type Subscriber,
} from '../stream/subscriber.js';
import type { StreamReader } from '../../store/readers/stream.js';
import type { BlockReader } from '../../store/readers/blocks.js';
import { errorResponses, ref } from '../schemas.js';
import { registerOtherMethods, type Query } from './define.js';

export interface StreamDeps {
  options: ApiOptions;
  hub: StreamHub;
  reader: StreamReader;
  blocks: BlockReader;
  metrics: StreamMetrics;
}

interface StreamSpec {
  route: StreamRoute;
  url: string;
  eventName: string;
  summary: string;
  query: ReturnType<typeof Type.Object>;
  filter(query: Query, prefix: string): StreamFilter;
}

const resumeProperties = {
  last_event_id: Type.Optional(
    Type.String({ description: 'resume after this event id (the Last-Event-ID header wins over it)' }),
  ),
  from_height: Type.Optional(Type.String({ description: 'replay from this height (inclusive)' })),
};

const SPECS: readonly StreamSpec[] = [
  {
    route: 'blocks',
    url: '/indexer/stream/v1/blocks',
    eventName: 'block',
    summary: 'Committed blocks as they arrive (SSE; data = a block of /indexer/block/v1/blocks; id = height)',
    query: Type.Object(resumeProperties),
    filter: () => ({ signerOnly: false }),
  },
  {
    route: 'txs',
    url: '/indexer/stream/v1/txs',
    eventName: 'tx',
    summary:
      'Committed txs as they arrive (SSE; data = the tx of /indexer/tx/v1/txs/{hash}; id = sequence); the filters select what /txs/by_account (or /txs with msgs) lists',
    query: Type.Object({
      account: Type.Optional(Type.String({ description: 'bech32 (chain prefix) or hex address' })),
      is_signer: Type.Optional(
        Type.String({ description: '"true": only txs the account signed (needs account)' }),
      ),
      msgs: Type.Optional(Type.Array(Type.String(), { description: 'message types, as on the list routes' })),
      ...resumeProperties,
    }),
    filter: txFilter,
  },
  {
    route: 'evm-txs',
    url: '/indexer/stream/v1/evm-txs',
    eventName: 'evm_tx',
    summary: 'Committed EVM txs as they arrive (SSE; data = a tx of /indexer/tx/v1/evm-txs; id = sequence)',
    query: Type.Object({
      account: Type.Optional(Type.String({ description: 'bech32 (chain prefix) or hex address' })),
      ...resumeProperties,
    }),
    filter: (query, prefix) => accountFilter(query, prefix, false),
  },
];

function txFilter(query: Query, prefix: string): StreamFilter {
  const signerOnly = parseIsSigner(query.is_signer);
  if (query.is_signer !== undefined && query.account === undefined) {
    throw new InputError('invalid_is_signer', 'is_signer needs account');
  }
  const filter = accountFilter(query, prefix, signerOnly);
  const names = parseMsgTypes(query.msgs);
  return names === undefined ? filter : { ...filter, msgNames: new Set(names) };
}

function accountFilter(query: Query, prefix: string, signerOnly: boolean): StreamFilter {
  if (query.account === undefined) return { signerOnly: false };
  return { accountHex: Buffer.from(parseAccount(query.account, prefix)).toString('hex'), signerOnly };
}

/** The live streams of docs/stream.md: SSE, resumable, validated like the list routes. */
export function registerStreamRoutes(app: FastifyInstance, deps: StreamDeps): void {
  const served = deps.options.vmType === 'evm' ? SPECS : SPECS.filter((s) => s.route !== 'evm-txs');
  app.addHook('preClose', () => deps.hub.close());
  for (const spec of served) {
    app.get(
      spec.url,
      {
        schema: {
          tags: ['Stream'],
          summary: spec.summary,
          querystring: spec.query,
          response: {
            200: {
              description: `"${spec.eventName}" events`,
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            410: ref('common.ErrorResponse'),
            ...errorResponses,
          },
        },
      },
      (request, reply) => openStream(request, reply, spec, deps),
    );
    registerOtherMethods(app, spec.url);
  }
}

async function openStream(request: FastifyRequest, reply: FastifyReply, spec: StreamSpec, deps: StreamDeps) {
  const { options } = deps;
  const query = request.query as Query;
  const filter = spec.filter(query, options.accountPrefix);
  const header = request.headers['last-event-id'];
  const resume = parseResumePoint(Array.isArray(header) ? header[0] : header, query);
  if (request.method === 'HEAD') return reply.code(200).header('content-type', 'text/event-stream').send();
  if (deps.hub.subscriberCount() >= options.streams.maxSubscribers) {
    throw new HttpError(
      503,
      GrpcCode.unavailable,
      `too many open streams (API_STREAM_MAX_SUBSCRIBERS=${options.streams.maxSubscribers})`,
      'overloaded',
    );
  }
  const sub = createSubscriber(reply.raw, {
    eventName: spec.eventName,
    filter,
    // Raised below once the resume point is known; nothing is written before that.
    lastId: Number.MAX_SAFE_INTEGER,
    minHeight: resume.kind === 'fromHeight' ? resume.height : 0,
    limits: { maxBufferBytes: options.streams.maxBufferBytes },
    onSlow: () => deps.metrics.slowClose(spec.route),
  });
  const delivered = await deps.hub.register(spec.route, sub);
  if (delivered === undefined) {
    // Stopping: a dropped connection makes the client retry (and find the restarted process),
    // where an error status would make an EventSource give up.
    reply.hijack();
    reply.raw.destroy();
    return reply;
  }
  let backlog: Backlog;
  try {
    backlog = await planBacklog(
      { ...deps, chainId: options.chainId },
      { route: spec.route, filter, resume, delivered, maxItems: options.streams.maxReplay },
    );
    if (backlog.size > options.streams.maxReplay)
      throw refuseReplay(spec, query, delivered, options.streams.maxReplay);
  } catch (err) {
    sub.abandon();
    throw err;
  }
  sub.lastId = backlog.after;
  openEventStream(reply, options.streams.retryMs);
  deps.metrics.opened(spec.route);
  deps.metrics.replayed(spec.route, backlog.size);
  sub.onClose(() => deps.metrics.closed(spec.route));
  await replayUntilLive(deps, spec.route, sub, backlog);
  return reply;
}

/**
 * Replays the backlog; while live events outgrew the queue meanwhile, replays again from the
 * database up to the hub's position. A backlog past the replay bound by then means the reader
 * itself cannot keep up: it is closed like any slow reader.
 */
async function replayUntilLive(deps: StreamDeps, route: StreamRoute, sub: Subscriber, first: Backlog) {
  const { options } = deps;
  let backlog = first;
  while ((await sub.replay(backlog.read())) === 'behind' && !sub.closed) {
    const delivered = await deps.hub.resync(route, sub);
    backlog = await planBacklog(
      { ...deps, chainId: options.chainId },
      {
        route,
        filter: sub.filter,
        resume: { kind: 'after', id: sub.lastId },
        delivered,
        maxItems: options.streams.maxReplay,
      },
    );
    if (backlog.size > options.streams.maxReplay) {
      deps.metrics.slowClose(route);
      sub.closeWith(14, 'slow consumer: resume with Last-Event-ID');
    }
  }
}

/** 410 before the stream opens: name the REST route to page and where to resume (docs/stream.md §2). */
function refuseReplay(spec: StreamSpec, query: Query, delivered: number, maxReplay: number): HttpError {
  const rest = restRouteOf(spec, query);
  return new HttpError(
    410,
    GrpcCode.outOfRange,
    `the resume point is more than API_STREAM_MAX_REPLAY=${maxReplay} items behind: page ${rest} up to ${spec.route === 'blocks' ? 'height' : 'sequence'} ${delivered}, then resume with last_event_id=${delivered}`,
    'replay_too_long',
  );
}

function restRouteOf(spec: StreamSpec, query: Query): string {
  if (spec.route === 'blocks') return '/indexer/block/v1/blocks';
  const base = spec.route === 'txs' ? '/indexer/tx/v1/txs' : '/indexer/tx/v1/evm-txs';
  return query.account === undefined ? base : `${base}/by_account/${query.account}`;
}

/** Takes the socket from Fastify and writes the SSE head (CORS headers the hooks set included). */
export function openEventStream(reply: FastifyReply, retryMs: number): void {
  reply.hijack();
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined && name !== 'content-length') headers[name] = value;
  }
  reply.raw.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    // Proxies such as nginx must pass events on at once instead of buffering them.
    'x-accel-buffering': 'no',
  });
  reply.raw.write(`retry: ${retryMs}\n\n`);
}
