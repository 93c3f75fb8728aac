import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

/**
 * A page origin of its own: an HTTP server on 127.0.0.1 that serves one HTML page, closed after
 * the describe block. A different port is a different origin, so the page's calls are cross-origin.
 */
export function usePageOrigin(html: string): () => Promise<string> {
  let server: Server | undefined;
  afterAll(() => {
    server?.close();
  });
  return async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}
