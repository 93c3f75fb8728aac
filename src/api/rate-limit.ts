import type { FastifyInstance } from 'fastify';
import { GrpcCode } from './errors.js';

/**
 * Optional per-client rate limit (API_RATE_LIMIT requests/second per client address, bursts of
 * API_RATE_LIMIT_BURST; off by default). A token bucket per address, in process memory: with
 * several API processes each enforces its own budget. Behind a proxy every client shares the
 * proxy's address, so put the limit in the proxy there instead. Probes (/health, /ready,
 * /metrics) are never limited.
 */
export interface RateLimitOptions {
  perSecond: number;
  burst: number;
  /** Most client addresses tracked at once; the longest-idle ones are forgotten first. */
  maxClients?: number;
  now?: () => number;
  /** Observes each 429 (a metric). */
  onLimited?: () => void;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export interface RateLimiter {
  /** 0 when the request may proceed, else the seconds to wait before the next one would. */
  take(client: string): number;
}

export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const maxClients = options.maxClients ?? 100_000;
  const buckets = new Map<string, Bucket>();
  return {
    take(client) {
      const at = now();
      const bucket = buckets.get(client) ?? { tokens: options.burst, updatedMs: at };
      buckets.delete(client); // re-inserted last: the map stays ordered by last use
      const refill = ((at - bucket.updatedMs) / 1000) * options.perSecond;
      bucket.tokens = Math.min(options.burst, bucket.tokens + refill);
      bucket.updatedMs = at;
      buckets.set(client, bucket);
      if (buckets.size > maxClients) {
        const oldest = buckets.keys().next();
        if (!oldest.done) buckets.delete(oldest.value);
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond));
    },
  };
}

const UNLIMITED_PATHS = new Set(['/health', '/ready', '/metrics']);

/** Answers 429 JSON (gRPC code 8, resource exhausted) with Retry-After once a client's bucket is empty. */
export function installRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  const limiter = createRateLimiter(options);
  app.addHook('onRequest', async (request, reply) => {
    const path = (request.url.split('?', 1)[0] ?? '').toLowerCase().replace(/\/+$/, '');
    if (UNLIMITED_PATHS.has(path)) return undefined;
    const wait = limiter.take(request.ip);
    if (wait === 0) return undefined;
    options.onLimited?.();
    const body = {
      code: GrpcCode.resourceExhausted,
      message: `Too Many Requests: at most ${options.perSecond} requests per second per client (API_RATE_LIMIT)`,
      details: [],
    };
    return reply
      .code(429)
      .header('retry-after', String(wait))
      .header('content-type', 'application/json')
      .send(Buffer.from(JSON.stringify(body)));
  });
}
