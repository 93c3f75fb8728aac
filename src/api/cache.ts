import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StoreWatch } from '../store/readers/store-watch.js';

/**
 * In-process response cache (docs/api.md §1.6): key = method + raw URL (path as sent plus the
 * raw query string), TTL per route, only successful bodies stored, `X-Cache: hit|miss`.
 * A request `Cache-Control: no-store` bypasses it (no X-Cache); `no-cache` skips the look-up
 * but stores the fresh answer.
 */
export interface ResponseCache {
  /** Answers from cache or runs `produce` (a JSON body) and stores it for ttlSeconds. */
  serve(
    request: FastifyRequest,
    reply: FastifyReply,
    ttlSeconds: number,
    produce: () => Promise<string | Buffer>,
  ): Promise<string | Buffer>;
  clear(): void;
}

interface Entry {
  /** Encoded once, so hits skip the UTF-8 encoding of large pages. */
  body: Buffer;
  expiresAt: number;
  /** The store watch's epoch the answer was produced under: a later epoch makes it a miss. */
  epoch: number;
}

export function createResponseCache(options: {
  enabled: boolean;
  /**
   * Budget for stored entries (bytes of body + key); oldest entries go first. Keys count: a
   * URL may be 16 KiB of ignored query, so bodies alone would not bound the memory.
   */
  maxBytes: number;
  /** Answers of an older store epoch (rows replaced by a job, a reset: docs/api.md §1.9) are misses. */
  watch?: StoreWatch;
  now?: () => number;
}): ResponseCache {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let bytes = 0;

  const sizeOf = (key: string, body: Buffer) => body.length + key.length;
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= sizeOf(key, entry.body);
    entries.delete(key);
  };
  const store = (key: string, body: Buffer, ttlSeconds: number, epoch: number) => {
    remove(key);
    if (sizeOf(key, body) > options.maxBytes) return;
    entries.set(key, { body, expiresAt: now() + ttlSeconds * 1000, epoch });
    bytes += sizeOf(key, body);
    while (bytes > options.maxBytes) {
      const oldest = entries.keys().next();
      if (oldest.done) break;
      remove(oldest.value);
    }
  };

  return {
    async serve(request, reply, ttlSeconds, produce) {
      const directive = String(request.headers['cache-control'] ?? '').toLowerCase();
      if (!options.enabled || directive.includes('no-store')) return produce();
      const key = `${request.method}:${request.url}`;
      // Read before producing: an answer produced while the store changed is kept under the old
      // epoch, so it is not served past the next confirmation.
      const epoch = options.watch ? await options.watch.epoch() : 0;
      if (!directive.includes('no-cache')) {
        const hit = entries.get(key);
        if (hit && hit.expiresAt > now() && hit.epoch === epoch) {
          void reply.header('x-cache', 'hit');
          return hit.body;
        }
        if (hit) remove(key);
      }
      const produced = await produce();
      const body = typeof produced === 'string' ? Buffer.from(produced, 'utf8') : produced;
      // A produced Buffer may be memory that is reused once its answer is sent (body-pool.ts).
      store(key, body === produced ? Buffer.from(body) : body, ttlSeconds, epoch);
      void reply.header('x-cache', 'miss');
      return body;
    },
    clear() {
      entries.clear();
      bytes = 0;
    },
  };
}
