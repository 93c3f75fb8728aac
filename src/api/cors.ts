import type { FastifyInstance } from 'fastify';
import type { CorsOptions } from './options.js';

/**
 * CORS exactly as docs/api.md §1.3 (the reference's middleware): wildcard or exact/`*.suffix`
 * origins, the allowed origin echoed lower-cased, disallowed origins served without CORS
 * headers, preflight (OPTIONS + Origin + Access-Control-Request-Method) answered 204.
 */
export function installCors(app: FastifyInstance, cors: CorsOptions): void {
  if (!cors.enabled) return;
  const wildcard = cors.allowOrigins.includes('*');
  // The reference forces credentials off with a wildcard origin list.
  const credentials = cors.allowCredentials && !wildcard;
  const allowed = (origin: string) =>
    cors.allowOrigins.some((pattern) =>
      pattern.startsWith('*.') ? origin.endsWith(pattern.slice(1)) : origin === pattern,
    );

  // Not `@fastify/cors`: it answers a refused origin's preflight 404 and an OPTIONS without
  // Access-Control-Request-Method a text/plain 400, and its preflight Vary is `Origin` alone
  // (cors.test.ts pins the reference's answers).
  app.addHook('onRequest', async (request, reply) => {
    const rawOrigin = request.headers.origin;
    const origin = typeof rawOrigin === 'string' ? rawOrigin.toLowerCase() : undefined;
    let allowOrigin: string | undefined;
    if (origin !== undefined) {
      if (wildcard) allowOrigin = '*';
      else if (allowed(origin)) allowOrigin = origin;
    }
    const preflight =
      request.method === 'OPTIONS' &&
      origin !== undefined &&
      request.headers['access-control-request-method'] !== undefined;
    if (preflight) {
      void reply.header('vary', 'Access-Control-Request-Method, Access-Control-Request-Headers, Origin');
      if (allowOrigin !== undefined) {
        void reply.header('access-control-allow-origin', allowOrigin);
        void reply.header('access-control-allow-methods', cors.allowMethods);
        if (cors.allowHeaders) void reply.header('access-control-allow-headers', cors.allowHeaders);
        if (credentials) void reply.header('access-control-allow-credentials', 'true');
        if (cors.maxAge > 0) void reply.header('access-control-max-age', String(cors.maxAge));
      }
      return reply.code(204).send();
    }
    if (!wildcard) void reply.header('vary', 'Origin');
    if (allowOrigin !== undefined) {
      void reply.header('access-control-allow-origin', allowOrigin);
      if (credentials) void reply.header('access-control-allow-credentials', 'true');
      if (cors.exposeHeaders) void reply.header('access-control-expose-headers', cors.exposeHeaders);
    }
    return undefined;
  });
}
