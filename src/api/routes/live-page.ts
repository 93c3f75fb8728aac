import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** public/live.html, both from src/ (tsx, tests) and dist/src/ (built CLI). */
function livePagePath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const up = here.includes(`${path.sep}dist${path.sep}`) ? ['..', '..', '..', '..'] : ['..', '..', '..'];
  return path.resolve(here, ...up, 'public', 'live.html');
}

/** `/`: a small live page (head, stage heights, new txs) fed by the streams themselves. */
export function registerLivePage(app: FastifyInstance): void {
  const page = readFileSync(livePagePath());
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', 'text/html; charset=utf-8').send(page),
  );
}
