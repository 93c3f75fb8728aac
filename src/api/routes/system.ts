import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { GrpcCode, HttpError } from '../errors.js';
import { errorResponses, ref } from '../schemas.js';
import { jsonRoute, type RouteDeps } from './define.js';

/** Optional extra readiness check supplied by a process that also runs ingest. */
export type ReadinessCheck = () => Promise<{ ready: boolean; reason?: string }>;

/** /health (liveness), /ready (database reachable, ingest not stalled), /metrics (Prometheus). */
export function registerSystemRoutes(
  app: FastifyInstance,
  deps: RouteDeps,
  extra: { metrics: Registry; readiness?: ReadinessCheck },
): void {
  jsonRoute(app, deps, {
    url: '/health',
    schema: { tags: ['App'], summary: 'Liveness', response: { 200: ref('health.HealthResponse') } },
    handler: async () => '{"status":"ok"}',
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
          throw new HttpError(503, GrpcCode.unavailable, 'indexer is stalled', 'indexer_stalled');
        }
      }
      if (extra.readiness) {
        const check = await extra.readiness();
        if (!check.ready)
          throw new HttpError(503, GrpcCode.unavailable, check.reason ?? 'not ready', 'not_ready');
      }
      return '{"status":"ready"}';
    },
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('content-type', extra.metrics.contentType);
    return extra.metrics.metrics();
  });
}
