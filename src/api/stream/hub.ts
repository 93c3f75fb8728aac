import type { CommitFeed } from '../../shared/commit-feed.js';
import { summarizeError } from '../../shared/error-cause.js';
import type { Logger } from '../../shared/logger.js';
import type { BlockReader } from '../../store/readers/blocks.js';
import type { StreamPosition, StreamReader, TxFamily } from '../../store/readers/stream.js';
import { createDictionaryIds } from './dictionary-ids.js';
import { matchChunk } from './matcher.js';
import type { StreamMetrics } from './metrics.js';
import { blockEvents, txEvents, type StreamEvent, type StreamRoute, type Subscriber } from './subscriber.js';
import { createSubscriberIndex, type SubscriberIndex } from './subscriber-index.js';

/** Rows read per statement while following the chain. */
const CHUNK = 500;
/**
 * Longest wait, while catching up, for the subscribers still holding the last chunk beyond their
 * bound before the next chunk is read: one reader that stopped reading (closed after STALL_MS)
 * slows the catch-up for everyone else by at most this much per chunk.
 */
const PACE_MAX_MS = 500;

/**
 * One per API process (docs/stream.md §4): on each wake-up it reads the committed checkpoint,
 * reads every new block and tx once, and matches them against every subscriber's filter in
 * memory — subscribers are indexed by account, so a tx costs its own accounts, not the number of
 * subscribers. Batches and registrations run one at a time, so a subscriber registered between
 * two batches has everything up to `delivered` from its replay and everything after it live.
 */
export interface StreamHub {
  /**
   * Adds a subscriber; resolves with the id it has everything up to once its replay is sent, or
   * undefined once the hub is closed (the process is stopping).
   */
  register(route: StreamRoute, sub: Subscriber): Promise<number | undefined>;
  /** For a subscriber whose replay fell behind: queue its live events again from here on. */
  resync(route: StreamRoute, sub: Subscriber): Promise<number>;
  subscriberCount(): number;
  close(): Promise<void>;
}

interface RouteState {
  family?: TxFamily;
  /** Last height (blocks) or sequence (txs) handed to subscribers. */
  delivered: number;
  subs: SubscriberIndex;
}

export interface StreamHubContext {
  reader: StreamReader;
  blocks: BlockReader;
  chainId: string;
  feed: CommitFeed;
  routes: readonly StreamRoute[];
  heartbeatMs: number;
  metrics: StreamMetrics;
  logger: Logger;
  /**
   * Whether the dictionaries' sequences move with every insert where this process reads them
   * (the primary: in-process or LISTEN; not a replica, which replays them in batches): misses
   * are then kept until the dictionaries may have grown, else asked again every chunk.
   */
  trustDictionaryGrowth: boolean;
}

/** What the hub's steps share: its context, each route's state and the dictionary-id caches. */
interface HubCore {
  ctx: StreamHubContext;
  states: Map<StreamRoute, RouteState>;
  ids: { accounts: ReturnType<typeof createDictionaryIds>; msgTypes: ReturnType<typeof createDictionaryIds> };
  /** Each route's `delivered` was set from a position read (the first read may fail and be retried). */
  positioned: boolean;
  /** The process is stopping: no read starts, and the one under way ends after its chunk. */
  closing: boolean;
}

/** The wait before reading again after a failed read, doubled per failure in a row up to the max. */
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 2000;

/** Runs functions one at a time, in call order; a failure does not stop the ones after it. */
function createSerialQueue(): <T>(fn: () => Promise<T> | T) => Promise<T> {
  let chain: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T> | T): Promise<T> => {
    const next = chain.then(fn);
    chain = next.catch(() => undefined);
    return next;
  };
}

/** Where each route starts: the committed position when the hub first reads it. */
async function positionRoutes(core: HubCore): Promise<void> {
  const pos = (await core.ctx.reader.position()) ?? emptyPosition();
  for (const [route, state] of core.states) state.delivered = positionOf(route, pos);
  core.positioned = true;
}

/**
 * Every route up to the committed checkpoint, chunk by chunk. A route's `delivered` moves only
 * once a chunk is read and handed out, so a read that fails leaves it where it was: the retry
 * reads the same chunk again, and a subscriber's `lastId` drops anything it already has.
 */
async function followCommits(core: HubCore): Promise<void> {
  const { ctx, states, ids } = core;
  if (!core.positioned) return positionRoutes(core);
  const pos = await ctx.reader.position();
  if (pos === undefined) return;
  const mark = ctx.trustDictionaryGrowth ? pos.dictionaryMark : undefined;
  ids.accounts.observe(pos.height, mark);
  ids.msgTypes.observe(pos.height, mark);
  for (const [route, state] of states) {
    const upto = positionOf(route, pos);
    while (state.delivered < upto && !core.closing) {
      const events = await nextEvents(core, route, state, upto);
      if (events.length === 0) break;
      ctx.metrics.delivered(route, Date.now() - pos.committedAtMs);
    }
  }
}

/** Reads one chunk after `delivered` and sends it; returns what it sent. */
async function nextEvents(
  core: HubCore,
  route: StreamRoute,
  state: RouteState,
  upto: number,
): Promise<StreamEvent[]> {
  for (const sub of state.subs.all()) sub.checkKeepingUp();
  const { events, subscribersOf } = await readChunk(core, state, upto);
  let sent = 0;
  for (const event of events) for (const sub of subscribersOf(event.id)) if (sub.send(event)) sent += 1;
  core.ctx.metrics.sent(route, sent);
  state.delivered = events.at(-1)?.id ?? upto;
  if (state.delivered < upto) await pace(state.subs);
  return events;
}

/**
 * Catching up, chunks come back to back: the next one is read once most of the subscribers that
 * hold the last one beyond their bound have flushed it (or after PACE_MAX_MS), so readers that
 * keep up are not buried under the whole backlog at once.
 */
async function pace(subs: SubscriberIndex): Promise<void> {
  const backedUp: Subscriber[] = [];
  for (const sub of subs.all()) if (sub.backedUp()) backedUp.push(sub);
  if (backedUp.length === 0) return;
  const needed = Math.ceil(backedUp.length / 2);
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve) => {
    let done = 0;
    timer = setTimeout(resolve, PACE_MAX_MS);
    for (const sub of backedUp) {
      void sub.drained().then(() => {
        done += 1;
        if (done >= needed) resolve();
      });
    }
  });
  clearTimeout(timer);
}

/** The next chunk's events and who gets each: every block subscriber, or the matched tx ones. */
async function readChunk(core: HubCore, state: RouteState, upto: number) {
  const { ctx, ids } = core;
  if (state.family === undefined) {
    const rows = await ctx.blocks.range(state.delivered, upto, CHUNK);
    return { events: blockEvents(rows, ctx.chainId), subscribersOf: () => state.subs.all() };
  }
  const rows = await ctx.reader.rows(state.family, state.delivered, upto, CHUNK);
  const matcher = await matchChunk(ctx.reader, ids, state.subs, {
    family: state.family,
    after: state.delivered,
    upto: rows.at(-1)?.sequence ?? upto,
  });
  return { events: txEvents(rows), subscribersOf: (id: number) => matcher.subscribersOf(id) };
}

function startHeartbeat(states: Map<StreamRoute, RouteState>, heartbeatMs: number): NodeJS.Timeout {
  const heartbeat = setInterval(() => {
    for (const state of states.values()) {
      for (const sub of state.subs.all()) {
        // Also where no commit comes: a reader that stopped reading is found while the chain idles.
        sub.checkKeepingUp();
        sub.heartbeat();
      }
    }
  }, heartbeatMs);
  heartbeat.unref();
  return heartbeat;
}

/**
 * What the commit feed calls: one follow-up queued at a time, however many commits arrive
 * meanwhile. A failed read is retried after a short backoff rather than at the next commit, which
 * may be long in coming on a quiet chain (docs/stream.md §4.1).
 */
function commitWaker(core: HubCore, serial: ReturnType<typeof createSerialQueue>) {
  let queued = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  const wake = (): void => {
    if (queued || core.closing) return;
    queued = true;
    clearTimeout(retry);
    void serial(async () => {
      queued = false;
      await followCommits(core);
      failures = 0;
    }).catch((err: unknown) => {
      failures += 1;
      core.ctx.metrics.readFailed();
      const retryInMs = Math.min(RETRY_FIRST_MS * 2 ** (failures - 1), RETRY_MAX_MS);
      core.ctx.logger.warn(
        { error: summarizeError(err), failures, retryInMs },
        'stream could not read the new commits; retrying',
      );
      if (!core.closing) retry = setTimeout(wake, retryInMs).unref();
    });
  };
  return { wake, stop: () => clearTimeout(retry) };
}

export function createStreamHub(ctx: StreamHubContext): StreamHub {
  const states = new Map<StreamRoute, RouteState>(
    ctx.routes.map((r) => [r, { delivered: 0, subs: createSubscriberIndex(), ...familyOf(r) }]),
  );
  const core: HubCore = {
    ctx,
    states,
    ids: { accounts: createDictionaryIds(), msgTypes: createDictionaryIds() },
    positioned: false,
    closing: false,
  };
  const serial = createSerialQueue();
  const heartbeat = startHeartbeat(states, ctx.heartbeatMs);
  const waker = commitWaker(core, serial);
  waker.wake(); // the first wake reads where every route starts
  ctx.feed.start(waker.wake);

  return {
    async register(route, sub) {
      const state = states.get(route);
      if (state === undefined) throw new Error(`stream route ${route} is not served here`);
      return serial(async () => {
        if (core.closing) return undefined;
        if (!core.positioned) await positionRoutes(core);
        state.subs.add(sub);
        sub.onClose(() => state.subs.remove(sub));
        return state.delivered;
      });
    },
    resync(route, sub) {
      return serial(() => {
        sub.queueAgain();
        return states.get(route)!.delivered;
      });
    },
    subscriberCount: () => [...states.values()].reduce((n, s) => n + s.subs.size, 0),
    async close() {
      core.closing = true;
      clearInterval(heartbeat);
      waker.stop();
      await ctx.feed.close();
      // The read under way ends before the caller closes the pool it reads from.
      await serial(() => undefined);
      for (const state of states.values()) {
        for (const sub of [...state.subs.all()]) {
          sub.closeWith(14, 'server shutting down: resume with Last-Event-ID');
        }
      }
    },
  };
}

function familyOf(route: StreamRoute): { family?: TxFamily } {
  if (route === 'txs') return { family: 'tx' };
  if (route === 'evm-txs') return { family: 'evm_tx' };
  return {};
}

function positionOf(route: StreamRoute, pos: StreamPosition): number {
  if (route === 'blocks') return pos.height;
  return route === 'txs' ? pos.txSequence : pos.evmSequence;
}

const emptyPosition = (): StreamPosition => ({
  height: 0,
  txSequence: 0,
  evmSequence: 0,
  committedAtMs: 0,
  dictionaryMark: undefined,
});
