import type { ServerResponse } from 'node:http';
import type { BlockRow } from '../../store/readers/blocks.js';
import type { SequencedRow } from '../../store/readers/stream.js';
import { renderBlock } from '../../wire/block.js';

/** What a subscriber asked for, resolved against the dictionaries as ids appear. */
/** The SSE routes a subscriber can follow (the hub keeps one position per route). */
export type StreamRoute = 'blocks' | 'txs' | 'evm-txs';

export interface StreamFilter {
  /** Lower-case hex of the account's bytes. */
  accountHex?: string;
  signerOnly: boolean;
  /** Message type names (no leading '/'); any of them matches. */
  msgNames?: ReadonlySet<string>;
}

/** One committed item in the form a stream sends it. */
export interface StreamEvent {
  /** Height (blocks) or sequence (txs): the SSE id a client resumes from. */
  id: number;
  height: number;
  data: string;
  /**
   * The encoded SSE frame, made by the first subscriber that sends the event and shared by the
   * others (the event name is the route's): one encoding per event, not one per subscriber.
   */
  frame?: Buffer;
}

/** Stream events of stored blocks: id = height, data = the block JSON of the REST routes. */
export const blockEvents = (rows: readonly BlockRow[], chainId: string): StreamEvent[] =>
  rows.map((row) => ({ id: row.height, height: row.height, data: renderBlock(row, chainId) }));

/** Stream events of stored txs: id = sequence, data = the stored tx JSON. */
export const txEvents = (rows: readonly SequencedRow[]): StreamEvent[] =>
  rows.map((r) => ({ id: r.sequence, height: r.height, data: r.data }));

export interface SubscriberLimits {
  /**
   * Bytes waiting in the socket past which a subscriber whose socket takes nothing for
   * `STALL_MS` is too slow and is closed (and, times `HARD_CAP_FACTOR`, closed at once).
   */
  maxBufferBytes: number;
}

/**
 * How long a socket may flush nothing while more than the bound waits for it before its reader
 * counts as not reading. Progress over time, not the queue's size at one instant: while the hub
 * catches up it writes chunks of hundreds of txs back to back, and a reader that keeps up still
 * has most of the last chunk queued when the next one comes.
 */
export const STALL_MS = 5000;
/**
 * Queued bytes, in units of the bound, past which even a reader that is still taking bytes is
 * closed: memory stays bounded however slowly a reader drains. Above one catch-up chunk (500 txs).
 */
export const HARD_CAP_FACTOR = 16;

/**
 * One open SSE connection. Live events are written at once; while the stored backlog is being
 * replayed they wait in a queue of the same byte bound; when a long replay overflows that queue,
 * the queue is dropped and the caller replays again from the database (`replay` answers
 * 'behind'), so a reader that keeps up is never closed for the server's own backlog. Ids at or
 * below `lastId` are never sent again, so replay and live can overlap without a duplicate.
 */
export interface Subscriber {
  readonly eventName: string;
  readonly filter: StreamFilter;
  /** The last id this client has (sent, or named by its resume point). */
  lastId: number;
  /** `from_height`: nothing below it is sent. */
  readonly minHeight: number;
  readonly closed: boolean;
  /** Writes a live event (or queues it during replay); true when written now. */
  send(event: StreamEvent): boolean;
  /** Writes the backlog in order, waiting for the socket to drain, then goes live. */
  replay(chunks: AsyncIterable<readonly StreamEvent[]>): Promise<'live' | 'behind'>;
  /** After 'behind': queue live events again (called where the hub's position is read). */
  queueAgain(): void;
  /**
   * Closes the subscriber as slow when more than its bound waits in its socket and the socket
   * flushed nothing for `STALL_MS`, or when past `HARD_CAP_FACTOR` times the bound.
   */
  checkKeepingUp(): void;
  /** More than the bound waits in its socket (the hub paces catch-up chunks on these). */
  backedUp(): boolean;
  /** Resolves once its socket has flushed what it queued (or it closed). */
  drained(): Promise<void>;
  heartbeat(): void;
  /** Ends the stream with a last `error` event (slow consumer, shutdown). */
  closeWith(code: number, message: string): void;
  /** Drops a subscriber whose stream never opened (the answer is an error instead). */
  abandon(): void;
  onClose(listener: () => void): void;
}

interface SubscriberInit {
  eventName: string;
  filter: StreamFilter;
  lastId: number;
  minHeight: number;
  limits: SubscriberLimits;
  onSlow: () => void;
  /** The clock stalls are measured with (tests move it by hand). */
  now?: () => number;
  /**
   * The frame of an event, called once per event right before it is written (default: the
   * route's frame, shared by every subscriber): a stream whose ids are its own (the deployment's
   * account stream) encodes each frame for its one client.
   */
  encode?: (event: StreamEvent) => Buffer;
  /** Writes the hub's `: keep-alive` comments (default true; false where its owner sends them). */
  keepAlive?: boolean;
}

/** One SSE client on its response; the state the `Subscriber` contract above describes. */
class SseSubscriber implements Subscriber {
  readonly eventName: string;
  readonly filter: StreamFilter;
  lastId: number;
  readonly minHeight: number;
  private readonly now: () => number;
  private readonly max: number;
  private pending: StreamEvent[] | undefined = [];
  private pendingBytes = 0;
  /** The queue overflowed during a replay: live events are dropped until the caller replays again. */
  private behind = false;
  /**
   * Progress: the socket's flushed bytes at the last check, and when it last flushed something or
   * had nothing worth flushing (a stall is measured from there).
   */
  private lastFlushed = -1;
  private movingAt: number;
  private drainWait: Promise<void> | undefined;
  private isClosed = false;
  private corked = false;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly init: SubscriberInit,
  ) {
    this.eventName = init.eventName;
    this.filter = init.filter;
    this.lastId = init.lastId;
    this.minHeight = init.minHeight;
    this.now = init.now ?? Date.now;
    this.max = init.limits.maxBufferBytes;
    this.movingAt = this.now();
    res.on('close', () => this.markClosed());
  }

  get closed(): boolean {
    return this.isClosed;
  }

  send(event: StreamEvent): boolean {
    if (this.isClosed) return false;
    // While the backlog is planned and replayed, everything live waits; ids are checked on flush.
    if (this.pending !== undefined) {
      if (this.behind) return false;
      this.pending.push(event);
      this.pendingBytes += event.data.length;
      if (this.pendingBytes > this.max) {
        this.behind = true;
        this.pending = [];
        this.pendingBytes = 0;
      }
      return false;
    }
    if (event.id <= this.lastId || event.height < this.minHeight) return false;
    this.corkForThisTick();
    this.res.write(this.frame(event));
    this.lastId = event.id;
    return true;
  }

  /**
   * The hub sends a chunk's events in one synchronous pass: held until the pass ends, they leave
   * in one write to the socket instead of one system call per event (with a few hundred busy
   * streams those calls were a third of the API's CPU).
   */
  private corkForThisTick(): void {
    if (this.corked) return;
    this.corked = true;
    this.res.cork();
    process.nextTick(() => {
      this.corked = false;
      this.res.uncork();
    });
  }

  checkKeepingUp(): void {
    if (this.isClosed) return;
    const { res, max } = this;
    const queued = res.writableLength;
    // Live, up to the bound waits without counting; replaying (written with back-pressure, so
    // the socket never holds much), anything waiting counts once live events overflowed.
    const live = this.pending === undefined;
    const t = this.now();
    if (queued <= (live ? max : 0)) {
      this.movingAt = t;
      return;
    }
    // bytesWritten counts what the socket still queues too: flushed = handed to the kernel.
    // (Only read past the bound: the getter walks the socket's queue.)
    const socket = res.socket;
    const flushed = socket ? socket.bytesWritten - socket.writableLength : 0;
    if (flushed !== this.lastFlushed) this.movingAt = t;
    this.lastFlushed = flushed;
    const stalled = t - this.movingAt >= STALL_MS;
    if (queued > HARD_CAP_FACTOR * max) this.slow();
    else if (live ? stalled : this.behind && stalled) this.slow();
  }

  backedUp(): boolean {
    return !this.isClosed && this.res.writableLength > this.max;
  }

  drained(): Promise<void> {
    if (this.isClosed || this.res.writableLength === 0) return Promise.resolve();
    this.drainWait ??= drained(this.res).then(() => {
      this.drainWait = undefined;
    });
    return this.drainWait;
  }

  async replay(chunks: AsyncIterable<readonly StreamEvent[]>): Promise<'live' | 'behind'> {
    for await (const events of chunks) {
      for (const event of events) {
        if (this.isClosed) return 'live';
        if (event.id <= this.lastId || event.height < this.minHeight) continue;
        this.lastId = event.id;
        if (!this.res.write(this.frame(event))) await drained(this.res);
      }
    }
    if (this.behind) return 'behind';
    const queued = this.pending ?? [];
    this.pending = undefined;
    for (const event of queued) this.send(event);
    return 'live';
  }

  queueAgain(): void {
    this.behind = false;
    this.pending = [];
    this.pendingBytes = 0;
  }

  heartbeat(): void {
    // Not before the route has written the stream's head (the subscriber is registered first).
    if (this.init.keepAlive === false) return;
    if (!this.isClosed && this.res.headersSent) this.res.write(': keep-alive\n\n');
  }

  closeWith(code: number, message: string): void {
    if (this.isClosed) return;
    if (this.res.headersSent) this.res.end(`event: error\ndata: ${JSON.stringify({ code, message })}\n\n`);
    else this.res.destroy();
    this.markClosed();
  }

  abandon(): void {
    this.markClosed();
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  private markClosed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const l of this.closeListeners) l();
  }

  private frame(e: StreamEvent): Buffer {
    if (this.init.encode) return this.init.encode(e);
    return (e.frame ??= Buffer.from(`id: ${e.id}\nevent: ${this.eventName}\ndata: ${e.data}\n\n`));
  }

  private slow(): void {
    this.init.onSlow();
    this.closeWith(14, 'slow consumer: resume with Last-Event-ID');
  }
}

export function createSubscriber(res: ServerResponse, init: SubscriberInit): Subscriber {
  return new SseSubscriber(res, init);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
