import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { GrpcCode, HttpError } from '../errors.js';
import { errorResponses, ref } from '../schemas.js';
import type { NodeWaits } from '../../shared/node-waits.js';
import { jsonRoute, type RouteDeps } from './define.js';
import { waitingNow } from './status.js';

/** Optional extra readiness check supplied by a process that also runs ingest. */
export type ReadinessCheck = () => Promise<{ ready: boolean; reason?: string }>;

/** /health (liveness), /ready (database reachable, ingest not stalled), /metrics (Prometheus). */
export function registerSystemRoutes(
  app: FastifyInstance,
  deps: RouteDeps,
  extra: { metrics: Registry; readiness?: ReadinessCheck; waits?: NodeWaits },
): void {
  // Left out while nothing waits, so the bodies stay as they were (docs/api.md §4.9).
  const withWaits = (body: Record<string, unknown>) =>
    JSON.stringify({ ...body, waiting: waitingNow(extra.waits) });
  jsonRoute(app, deps, {
    url: '/health',
    schema: { tags: ['App'], summary: 'Liveness', response: { 200: ref('health.HealthResponse') } },
    handler: async () => withWaits({ status: 'ok' }),
  });

  jsonRoute(app, deps, {
    url: '/ready',
    schema: {
      tags: ['App'],
      summary: 'Readiness: database reachable and indexer not stalled',
      response: { 200: ref('health.HealthResponse'), ...errorResponses },
    },
    async handler() {
      await deps.readers.health.ping();
      const maxLag = deps.options.readyMaxLagSeconds;
      if (maxLag > 0) {
        const age = await deps.readers.health.checkpointAgeSeconds();
        if (age === undefined || age > maxLag) {
          const waiting = waitingNow(extra.waits)?.[0];
          const why = waiting ? `: waiting for ${waiting.on} since ${waiting.since} (${waiting.what})` : '';
          throw new HttpError(503, GrpcCode.unavailable, `indexer is stalled${why}`, 'indexer_stalled');
        }
      }
      if (extra.readiness) {
        const check = await extra.readiness();
        if (!check.ready)
          throw new HttpError(503, GrpcCode.unavailable, check.reason ?? 'not ready', 'not_ready');
      }
      return withWaits({ status: 'ready' });
    },
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('content-type', extra.metrics.contentType);
    return extra.metrics.metrics();
  });
}
