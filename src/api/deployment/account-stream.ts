import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../shared/logger.js';
import { GrpcCode, HttpError } from '../errors.js';
import type { ApiSettings } from '../options.js';
import { registerOtherMethods } from '../routes/define.js';
import { openEventStream } from '../routes/stream.js';
import { parseStreamAccount, resumePositions, selectChains } from './account-stream-id.js';
import { AccountStreamConnection } from './account-stream-connection.js';
import type { ChainDirectory } from './directory.js';

const URL = '/indexer/stream/v1/account/:address';
/** How often each chain's state is checked and a chain not followed is tried again. */
const CHECK_MS = 1000;

/** The error JSON (docs/api.md §0.1). */
const ERROR = {
  description: 'the error JSON',
  type: 'object',
  properties: { code: { type: 'integer' }, message: { type: 'string' }, details: { type: 'array' } },
};

export interface AccountStreamDeps {
  directory: ChainDirectory;
  settings: Readonly<ApiSettings>;
  logger: Logger;
}

/**
 * `GET /indexer/stream/v1/account/{address}` (docs/chains.md §4.4): the account's new txs on every
 * chain of the deployment (or those of `chain_ids`) in one SSE stream, each chain followed through
 * its own API's hub; the event id carries every chain's position, so `Last-Event-ID` resumes them
 * all with no gap and no duplicate.
 */
export function registerAccountStream(app: FastifyInstance, deps: AccountStreamDeps): void {
  const open = new Set<AccountStreamConnection>();
  const state = { closing: false };
  // The chains file read again (docs/chains.md §6): every open stream follows the new set.
  deps.directory.onChange(() => {
    for (const c of open) c.updateChains(deps.directory.chains);
  });
  app.addHook('preClose', async () => {
    state.closing = true;
    for (const c of [...open]) c.closeWith(14, 'server shutting down: resume with Last-Event-ID');
  });
  app.get(
    URL,
    {
      schema: {
        tags: ['Stream'],
        summary:
          "An account's new txs on every chain (SSE; event tx, data = {chain_id, tx} with tx as the chain's /indexer/tx/v1/txs/{hash}; id = every chain's position)",
        params: {
          type: 'object',
          properties: { address: { type: 'string', description: 'init1…, 0x + 40 hex, or 0x + 64 hex' } },
        },
        querystring: {
          type: 'object',
          properties: {
            chain_ids: { type: 'string', description: 'only these chains (comma list)' },
            last_event_id: {
              type: 'string',
              description: 'resume after this event id (the Last-Event-ID header wins over it)',
            },
          },
        },
        response: {
          200: {
            description: '"tx" events; "chains" first, then "chain" when a chain stops or comes back',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          400: ERROR,
          404: ERROR,
          410: ERROR,
          503: ERROR,
        },
      },
    },
    (request, reply) => openAccountStream(request, reply, deps, { open, state }),
  );
  registerOtherMethods(app, URL);
}

async function openAccountStream(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AccountStreamDeps,
  { open, state }: { open: Set<AccountStreamConnection>; state: { closing: boolean } },
) {
  const { settings } = deps;
  const { address } = request.params as { address: string };
  const query = request.query as Record<string, unknown>;
  const accountHex = parseStreamAccount(address, settings.accountPrefix);
  const chains = selectChains(deps.directory, query.chain_ids);
  const resume = resumePositions(request.headers['last-event-id'], query);
  if (request.method === 'HEAD') return reply.code(200).header('content-type', 'text/event-stream').send();
  if (state.closing) return dropConnection(reply);
  if (open.size >= settings.streams.maxSubscribers)
    throw new HttpError(
      503,
      GrpcCode.unavailable,
      `too many open streams (API_STREAM_MAX_SUBSCRIBERS=${settings.streams.maxSubscribers})`,
      'overloaded',
    );
  const connection = new AccountStreamConnection({
    res: reply.raw,
    chains,
    only: query.chain_ids === undefined ? undefined : new Set(chains.map((c) => c.chainId)),
    accountHex,
    resume,
    maxBufferBytes: settings.streams.maxBufferBytes,
    maxReplay: settings.streams.maxReplay,
    heartbeatMs: settings.streams.heartbeatMs,
    checkMs: CHECK_MS,
    logger: deps.logger,
  });
  open.add(connection);
  connection.onClose(() => open.delete(connection));
  await connection.attachAll();
  if (state.closing) connection.end();
  if (connection.closed) return dropConnection(reply);
  if (connection.backlogSize() > settings.streams.maxReplay) {
    connection.end();
    throw new HttpError(
      410,
      GrpcCode.outOfRange,
      `the resume point is more than API_STREAM_MAX_REPLAY=${settings.streams.maxReplay} items behind: page /indexer/account/v1/${address}/txs first, then resume with last_event_id=${connection.deliveredId()}`,
      'replay_too_long',
    );
  }
  openEventStream(reply, settings.streams.retryMs);
  connection.start();
  return reply;
}

/**
 * The process is stopping (or the client left): a dropped connection makes an EventSource retry and
 * find the restarted process, where an error status would make it give up, and no stream opened
 * now holds the port open while the process closes it.
 */
function dropConnection(reply: FastifyReply): FastifyReply {
  reply.hijack();
  reply.raw.destroy();
  return reply;
}
