import type { CommitFeed } from '../../shared/commit-feed.js';
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
 * One per API process (spec/stream.md §4): on each wake-up it reads the committed checkpoint,
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

export function createStreamHub(ctx: {
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
}): StreamHub {
  const states = new Map<StreamRoute, RouteState>(
    ctx.routes.map((r) => [r, { delivered: 0, subs: createSubscriberIndex(), ...familyOf(r) }]),
  );
  const ids = { accounts: createDictionaryIds(), msgTypes: createDictionaryIds() };
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T> | T): Promise<T> => {
    const next = chain.then(fn);
    chain = next.catch(() => undefined);
    return next;
  };
  const started = serial(async () => {
    const pos = (await ctx.reader.position()) ?? emptyPosition();
    for (const [route, state] of states) state.delivered = positionOf(route, pos);
  });

  let queued = false;
  let closed = false;
  const wake = () => {
    if (queued) return;
    queued = true;
    void serial(async () => {
      queued = false;
      await followCommits();
    }).catch((err: unknown) => {
      ctx.logger.warn(
        { err: (err as Error).message },
        'stream could not read the new commits; next wake retries',
      );
    });
  };

  const followCommits = async () => {
    const pos = await ctx.reader.position();
    if (pos === undefined) return;
    const mark = ctx.trustDictionaryGrowth ? pos.dictionaryMark : undefined;
    ids.accounts.observe(pos.height, mark);
    ids.msgTypes.observe(pos.height, mark);
    for (const [route, state] of states) {
      const upto = positionOf(route, pos);
      while (state.delivered < upto) {
        const events = await nextEvents(route, state, upto);
        if (events.length === 0) break;
        ctx.metrics.delivered(route, Date.now() - pos.committedAtMs);
      }
    }
  };

  /** Reads one chunk after `delivered` and sends it; returns what it sent. */
  const nextEvents = async (route: StreamRoute, state: RouteState, upto: number): Promise<StreamEvent[]> => {
    for (const sub of state.subs.all()) sub.checkKeepingUp();
    const { events, subscribersOf } = await readChunk(state, upto);
    let sent = 0;
    for (const event of events) for (const sub of subscribersOf(event.id)) if (sub.send(event)) sent += 1;
    ctx.metrics.sent(route, sent);
    state.delivered = events.at(-1)?.id ?? upto;
    if (state.delivered < upto) await pace(state.subs);
    return events;
  };

  /**
   * Catching up, chunks come back to back: the next one is read once most of the subscribers that
   * hold the last one beyond their bound have flushed it (or after PACE_MAX_MS), so readers that
   * keep up are not buried under the whole backlog at once.
   */
  const pace = async (subs: SubscriberIndex) => {
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
  };

  /** The next chunk's events and who gets each: every block subscriber, or the matched tx ones. */
  const readChunk = async (state: RouteState, upto: number) => {
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
  };

  const heartbeat = setInterval(() => {
    for (const state of states.values()) {
      for (const sub of state.subs.all()) {
        // Also where no commit comes: a reader that stopped reading is found while the chain idles.
        sub.checkKeepingUp();
        sub.heartbeat();
      }
    }
  }, ctx.heartbeatMs);
  heartbeat.unref();
  ctx.feed.start(wake);

  return {
    async register(route, sub) {
      await started;
      const state = states.get(route);
      if (state === undefined) throw new Error(`stream route ${route} is not served here`);
      return serial(() => {
        if (closed) return undefined;
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
      closed = true;
      clearInterval(heartbeat);
      await ctx.feed.close();
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
