import type { ServerResponse } from 'node:http';

/** What a subscriber asked for, resolved against the dictionaries as ids appear. */
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
}

export interface SubscriberLimits {
  /**
   * Bytes waiting in the socket past which live events are queued, and bytes still queued when
   * the next batch comes past which the subscriber is too slow and is closed.
   */
  maxBufferBytes: number;
}

/**
 * One open SSE connection. Live events are written at once; while the stored backlog is being
 * replayed, or while the socket holds more than the byte bound, they wait in a queue of the same
 * bound (references to the hub's shared events). Ids at or below `lastId` are never sent again,
 * so replay and live can overlap without a duplicate.
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
  replay(chunks: AsyncIterable<readonly StreamEvent[]>): Promise<void>;
  heartbeat(): void;
  /** Ends the stream with a last `error` event (slow consumer, shutdown). */
  closeWith(code: number, message: string): void;
  /** Drops a subscriber whose stream never opened (the answer is an error instead). */
  abandon(): void;
  onClose(listener: () => void): void;
}

export function createSubscriber(
  res: ServerResponse,
  init: {
    eventName: string;
    filter: StreamFilter;
    lastId: number;
    minHeight: number;
    limits: SubscriberLimits;
    onSlow: () => void;
  },
): Subscriber {
  let pending: StreamEvent[] | undefined = [];
  let pendingBytes = 0;
  let closed = false;
  const closeListeners: (() => void)[] = [];
  res.on('close', () => {
    if (closed) return;
    closed = true;
    for (const l of closeListeners) l();
  });

  const frame = (e: StreamEvent) => `id: ${e.id}\nevent: ${init.eventName}\ndata: ${e.data}\n\n`;
  const sub: Subscriber = {
    eventName: init.eventName,
    filter: init.filter,
    lastId: init.lastId,
    minHeight: init.minHeight,
    get closed() {
      return closed;
    },
    send(event) {
      if (closed) return false;
      // While the backlog is planned and replayed, everything live waits; ids are checked on flush.
      if (pending !== undefined) return queue(event);
      if (event.id <= sub.lastId || event.height < sub.minHeight) return false;
      // The hub writes a whole chunk (up to 500 rows) in one go, so a full socket buffer says
      // nothing yet about the client: a fast one drains it within moments. Wait for that drain
      // with the rest queued; only a client that lets the queue fill too is slow.
      if (res.writableLength > init.limits.maxBufferBytes) {
        pending = [];
        res.once('drain', flush);
        return queue(event);
      }
      res.write(frame(event));
      sub.lastId = event.id;
      return true;
    },
    async replay(chunks) {
      for await (const events of chunks) {
        for (const event of events) {
          if (closed) return;
          if (event.id <= sub.lastId || event.height < sub.minHeight) continue;
          sub.lastId = event.id;
          if (!res.write(frame(event))) await drained(res);
        }
      }
      flush();
    },
    heartbeat() {
      if (!closed) res.write(': keep-alive\n\n');
    },
    closeWith(code, message) {
      if (closed) return;
      res.end(`event: error\ndata: ${JSON.stringify({ code, message })}\n\n`);
      closed = true;
      for (const l of closeListeners) l();
    },
    abandon() {
      if (closed) return;
      closed = true;
      for (const l of closeListeners) l();
    },
    onClose(listener) {
      closeListeners.push(listener);
    },
  };
  // The hub sends a whole chunk in one synchronous pass; what it queues there are references to
  // the chunk's own events, which the hub holds anyway. A client is slow when bytes queued by
  // earlier passes are still waiting as a new one begins: that is what would grow without bound.
  let inPass = false;
  const queue = (event: StreamEvent): false => {
    if (!inPass) {
      inPass = true;
      queueMicrotask(() => (inPass = false));
      if (pendingBytes > init.limits.maxBufferBytes) {
        slow();
        return false;
      }
    }
    pending!.push(event);
    pendingBytes += event.data.length;
    return false;
  };
  // Sends what waited; if the socket fills again on the way, the rest waits for the next drain.
  const flush = () => {
    const queued = pending ?? [];
    pending = undefined;
    pendingBytes = 0;
    for (const event of queued) sub.send(event);
  };
  const slow = () => {
    init.onSlow();
    sub.closeWith(14, 'slow consumer: resume with Last-Event-ID');
  };
  return sub;
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
