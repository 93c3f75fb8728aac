import type { CommitFeed } from '../../shared/commit-feed.js';
import type { Logger } from '../../shared/logger.js';
import type { BlockReader } from '../../store/readers/blocks.js';
import type { StreamPosition, StreamReader, TxEdge, TxFamily } from '../../store/readers/stream.js';
import type { StreamMetrics } from './metrics.js';
import { blockEvents, txEvents, type StreamEvent, type Subscriber } from './subscriber.js';

export type StreamRoute = 'blocks' | 'txs' | 'evm-txs';

/** Rows read per statement while following the chain. */
const CHUNK = 500;

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
  all: Set<Subscriber>;
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
}): StreamHub {
  const states = new Map<StreamRoute, RouteState>(
    ctx.routes.map((r) => [r, { delivered: 0, all: new Set(), ...familyOf(r) }]),
  );
  const ids: IdCache = { accounts: new Map(), msgTypes: new Map() };
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
    for (const sub of state.all) sub.checkKeepingUp();
    const { events, subscribersOf } = await readChunk(state, upto);
    let sent = 0;
    for (const event of events) for (const sub of subscribersOf(event.id)) if (sub.send(event)) sent += 1;
    ctx.metrics.sent(route, sent);
    state.delivered = events.at(-1)?.id ?? upto;
    return events;
  };

  /** The next chunk's events and who gets each: every block subscriber, or the matched tx ones. */
  const readChunk = async (state: RouteState, upto: number) => {
    if (state.family === undefined) {
      const rows = await ctx.blocks.range(state.delivered, upto, CHUNK);
      return { events: blockEvents(rows, ctx.chainId), subscribersOf: () => state.all };
    }
    const rows = await ctx.reader.rows(state.family, state.delivered, upto, CHUNK);
    const matcher = await createMatcher(ctx.reader, ids, {
      family: state.family,
      subs: state.all,
      after: state.delivered,
      upto: rows.at(-1)?.sequence ?? upto,
    });
    return { events: txEvents(rows), subscribersOf: (id: number) => matcher.subscribersOf(id) };
  };

  const heartbeat = setInterval(() => {
    for (const state of states.values()) for (const sub of state.all) sub.heartbeat();
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
        state.all.add(sub);
        sub.onClose(() => state.all.delete(sub));
        return state.delivered;
      });
    },
    resync(route, sub) {
      return serial(() => {
        sub.queueAgain();
        return states.get(route)!.delivered;
      });
    },
    subscriberCount: () => [...states.values()].reduce((n, s) => n + s.all.size, 0),
    async close() {
      closed = true;
      clearInterval(heartbeat);
      await ctx.feed.close();
      for (const state of states.values()) {
        for (const sub of state.all) sub.closeWith(14, 'server shutting down: resume with Last-Event-ID');
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

const emptyPosition = (): StreamPosition => ({ height: 0, txSequence: 0, evmSequence: 0, committedAtMs: 0 });

/** Dictionary ids learnt so far (only hits: an account or type that appears later is asked again). */
interface IdCache {
  accounts: Map<string, number>;
  msgTypes: Map<string, number>;
}

async function resolve(
  names: readonly string[],
  known: Map<string, number>,
  lookUp: (missing: string[]) => Promise<Map<string, number>>,
): Promise<Map<string, number>> {
  // A cache of hits only; cleared when huge, since a stream may see any number of accounts over time.
  if (known.size > 200_000) known.clear();
  const missing = names.filter((n) => !known.has(n));
  if (missing.length > 0) for (const [name, id] of await lookUp(missing)) known.set(name, id);
  const out = new Map<string, number>();
  for (const n of names) {
    const id = known.get(n);
    if (id !== undefined) out.set(n, id);
  }
  return out;
}

/**
 * Which subscribers each tx of a chunk goes to. Unfiltered subscribers take every tx; the others
 * are indexed by account and by message type, and the chunk's edges are read once for all of
 * them (one bounded index range per subscribed account or type).
 */
async function createMatcher(
  reader: StreamReader,
  ids: IdCache,
  chunk: { family: TxFamily; subs: Iterable<Subscriber>; after: number; upto: number },
): Promise<{ subscribersOf(sequence: number): Iterable<Subscriber> }> {
  const unfiltered: Subscriber[] = [];
  const typeOnly: Subscriber[] = [];
  const byAccount = new Map<string, Subscriber[]>();
  const names = new Set<string>();
  for (const s of chunk.subs) {
    for (const name of s.filter.msgNames ?? []) names.add(name);
    const hex = s.filter.accountHex;
    if (hex !== undefined) byAccount.set(hex, [...(byAccount.get(hex) ?? []), s]);
    else if (s.filter.msgNames !== undefined) typeOnly.push(s);
    else unfiltered.push(s);
  }
  if (byAccount.size === 0 && typeOnly.length === 0) return { subscribersOf: () => unfiltered };

  const [accountIds, typeIds] = await Promise.all([
    resolve([...byAccount.keys()], ids.accounts, (hexes) =>
      reader.accountIds(hexes.map((h) => Buffer.from(h, 'hex'))),
    ),
    resolve([...names], ids.msgTypes, (missing) => reader.msgTypeIds(missing)),
  ]);
  const [accountEdges, typeEdges] = await Promise.all([
    reader.accountEdges(chunk.family, [...accountIds.values()], chunk.after, chunk.upto),
    reader.msgTypeEdges([...typeIds.values()], chunk.after, chunk.upto),
  ]);
  const typeName = new Map([...typeIds].map(([name, id]) => [id, name]));
  const accountHex = new Map([...accountIds].map(([hex, id]) => [id, hex]));
  const typesOf = groupBySequence(typeEdges, (e) => typeName.get(e.id)!);
  const accountsOf = groupBySequence(accountEdges, (e) => e);
  const typeMatches = (s: Subscriber, types: readonly string[] | undefined) =>
    s.filter.msgNames === undefined || (types ?? []).some((t) => s.filter.msgNames!.has(t));

  return {
    *subscribersOf(sequence) {
      yield* unfiltered;
      const types = typesOf.get(sequence);
      for (const s of typeOnly) if (typeMatches(s, types)) yield s;
      for (const edge of accountsOf.get(sequence) ?? []) {
        for (const s of byAccount.get(accountHex.get(edge.id)!) ?? []) {
          if ((!s.filter.signerOnly || edge.signer) && typeMatches(s, types)) yield s;
        }
      }
    },
  };
}

function groupBySequence<T>(edges: readonly TxEdge[], pick: (e: TxEdge) => T): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const e of edges) {
    const list = out.get(e.sequence);
    if (list) list.push(pick(e));
    else out.set(e.sequence, [pick(e)]);
  }
  return out;
}
