import type { ServerResponse } from 'node:http';
import { planBacklog, type Backlog } from '../stream/resume.js';
import type { StreamSource } from '../stream/source.js';
import { createSubscriber, type StreamEvent, type Subscriber } from '../stream/subscriber.js';
import type { DeployedChain } from './directory.js';

/**
 * One chain of an account stream (docs/chains.md §4.4): a subscriber on that chain's own hub,
 * filtered by the account, writing to the shared response through the stream's own frames.
 */
export interface Leg {
  readonly chainId: string;
  readonly sub: Subscriber;
  readonly source: StreamSource;
  /** The hub's position when the leg registered: the replay ends there, live starts after it. */
  readonly delivered: number;
  readonly backlog: Backlog;
}

export interface LegContext {
  res: ServerResponse;
  accountHex: string;
  maxBufferBytes: number;
  maxReplay: number;
  /** The SSE frame of one of this chain's events (called once per event, as it is written). */
  encode(chainId: string, event: StreamEvent): Buffer;
  onSlow(): void;
}

/** Why a chain is not followed: its API is not serving, or a read failed or took too long. */
export class LegUnavailable extends Error {}

/** How long a chain may take to register and plan its replay before the stream opens without it. */
export const ATTACH_TIMEOUT_MS = 2000;

/**
 * Registers on the chain's hub and plans its replay after `after` (the client's position on this
 * chain; undefined = from now on). The leg writes nothing until `replayLeg` runs.
 */
export async function attachLeg(
  ctx: LegContext,
  chain: DeployedChain,
  after: number | undefined,
): Promise<Leg> {
  const source = chain.streams();
  if (!source) {
    const why = chain.condition().lastError?.message ?? 'starting';
    throw new LegUnavailable(`not serving yet: ${why}`);
  }
  const filter = { accountHex: ctx.accountHex, signerOnly: false };
  const sub = createSubscriber(ctx.res, {
    eventName: 'tx',
    filter,
    // Raised once the backlog is planned; nothing is written before that.
    lastId: Number.MAX_SAFE_INTEGER,
    minHeight: 0,
    limits: { maxBufferBytes: ctx.maxBufferBytes },
    onSlow: ctx.onSlow,
    encode: (event) => ctx.encode(source.chainId, event),
    keepAlive: false,
  });
  try {
    const delivered = await source.hub.register('txs', sub);
    if (delivered === undefined) throw new LegUnavailable('its API is stopping');
    const backlog = await planBacklog(source, {
      route: 'txs',
      filter,
      resume: after === undefined ? { kind: 'live' } : { kind: 'after', id: after },
      delivered,
      maxItems: ctx.maxReplay,
    });
    // Live events wait in the subscriber's queue until its replay runs; ids are checked on flush.
    sub.lastId = backlog.after;
    return { chainId: chain.chainId, sub, source, delivered, backlog };
  } catch (err) {
    sub.abandon();
    throw err;
  }
}

/**
 * Writes the leg's backlog, then its live events; while live events outgrew the queue meanwhile,
 * replays again from the chain's database up to its hub's position (as the single-chain streams
 * do, docs/stream.md §3). Resolves false when the reader fell too far behind to catch up.
 */
export async function replayLeg(leg: Leg, maxReplay: number): Promise<boolean> {
  const { sub, source } = leg;
  let backlog = leg.backlog;
  while ((await sub.replay(backlog.read())) === 'behind' && !sub.closed) {
    const delivered = await source.hub.resync('txs', sub);
    backlog = await planBacklog(source, {
      route: 'txs',
      filter: sub.filter,
      resume: { kind: 'after', id: sub.lastId },
      delivered,
      maxItems: maxReplay,
    });
    if (backlog.size > maxReplay) return false;
  }
  return true;
}

/** Settles with `work`, or rejects with LegUnavailable after `ms` (the work goes on). */
export function withinTime<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new LegUnavailable(`${what} took over ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
