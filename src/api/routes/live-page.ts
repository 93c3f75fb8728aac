import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** A page of public/, both from src/ (tsx, tests) and dist/src/ (built CLI). */
function publicPagePath(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const up = here.includes(`${path.sep}dist${path.sep}`) ? ['..', '..', '..', '..'] : ['..', '..', '..'];
  return path.resolve(here, ...up, 'public', name);
}

/**
 * `/`: a small live page fed by the streams themselves — a chain's head, stage heights and new txs
 * (`live.html`), or every chain of a deployment (`chains.html`, docs/chains.md §2).
 */
export function registerLivePage(
  app: FastifyInstance,
  name: 'live.html' | 'chains.html' = 'live.html',
): void {
  const page = readFileSync(publicPagePath(name));
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', 'text/html; charset=utf-8').send(page),
  );
}
