import { accessSync, constants } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll } from 'vitest';

/** CHROMIUM_PATH, else Debian's `chromium` found on PATH; undefined when there is none. */
export function findChromium(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const candidates = process.env.CHROMIUM_PATH
    ? [process.env.CHROMIUM_PATH]
    : dirs.flatMap((dir) => ['chromium', 'chromium-browser'].map((name) => path.join(dir, name)));
  return candidates.find(isExecutable);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

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
