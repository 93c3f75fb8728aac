import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { installCors } from './cors.js';
import type { CorsOptions } from './options.js';

const OPTIONS: CorsOptions = {
  enabled: true,
  allowOrigins: ['https://exact.io', '*.example.com'],
  allowMethods: 'GET,HEAD,OPTIONS',
  allowHeaders: 'Origin,Content-Type',
  allowCredentials: true,
  exposeHeaders: '',
  maxAge: 60,
};

/**
 * The reference's CORS answers that `@fastify/cors` cannot give (why cors.ts is hand-written and
 * the library is not a dependency): a preflight from a refused origin is still a 204 carrying only
 * the reference's three-name Vary, and an OPTIONS without Access-Control-Request-Method is no
 * preflight but an ordinary request (the library answers 404 to the first and a text/plain 400 to
 * the second).
 */
describe('installCors', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
  });
  const appWith = async (cors: CorsOptions) => {
    app = Fastify();
    installCors(app, cors);
    app.get('/health', async () => ({ ok: true }));
    await app.ready();
    return app;
  };
  const PREFLIGHT_VARY = 'Access-Control-Request-Method, Access-Control-Request-Headers, Origin';

  it('answers a refused origin’s preflight 204 with the Vary alone', async () => {
    const server = await appWith(OPTIONS);
    const res = await server.inject({
      method: 'OPTIONS',
      url: '/health',
      headers: { origin: 'https://evil.io', 'access-control-request-method': 'GET' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers.vary).toBe(PREFLIGHT_VARY);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('answers an allowed origin’s preflight with the lower-cased origin and every preflight header', async () => {
    const server = await appWith(OPTIONS);
    const res = await server.inject({
      method: 'OPTIONS',
      url: '/health',
      headers: { origin: 'https://App.Example.com', 'access-control-request-method': 'GET' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers).toMatchObject({
      vary: PREFLIGHT_VARY,
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'GET,HEAD,OPTIONS',
      'access-control-allow-headers': 'Origin,Content-Type',
      'access-control-allow-credentials': 'true',
      'access-control-max-age': '60',
    });
  });

  it('treats an OPTIONS without Access-Control-Request-Method as an ordinary request', async () => {
    const server = await appWith(OPTIONS);
    const res = await server.inject({
      method: 'OPTIONS',
      url: '/health',
      headers: { origin: 'https://exact.io' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers.vary).toBe('Origin');
    expect(res.headers['access-control-allow-origin']).toBe('https://exact.io');
  });

  it('sends no Vary and no credentials with a wildcard origin list', async () => {
    const server = await appWith({ ...OPTIONS, allowOrigins: ['*'] });
    const res = await server.inject({ url: '/health', headers: { origin: 'https://any.where' } });
    expect(res.headers.vary).toBeUndefined();
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});
