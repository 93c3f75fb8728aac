import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A REST proxy in front of the simulator that, once told `failFrom(h)`, answers every NFT look-up
 * at a height ≥ h with `trouble`, until `heal()`. Everything else passes through unchanged. It
 * records the heights of the look-ups it failed.
 */
export async function startLookupBlocker(
  target: string,
  trouble: { status: number; body: string; type: string },
) {
  let from: number | undefined;
  const failed = new Set<number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const height = Number(req.headers['x-cosmos-block-height'] ?? Number.NaN);
      const object = nftLookupObject(req.method ?? 'GET', req.url ?? '/', body);
      if (object !== undefined && from !== undefined && height >= from) {
        failed.add(height);
        res.writeHead(trouble.status, { 'content-type': trouble.type }).end(trouble.body);
        return;
      }
      forward(target, req, body).then(
        (answer) => res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body),
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    failFrom: (h: number) => void (from = h),
    heal: () => void (from = undefined),
    failedHeights: () => [...failed],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The object an NFT look-up request is about (as the look-up names it in errors), or undefined. */
function nftLookupObject(method: string, url: string, body: string): string | undefined {
  const path = url.split('?')[0]!;
  const move = /^\/initia\/move\/v1\/accounts\/(0x[0-9a-fA-F]+)\/resources\/by_struct_tag$/.exec(path);
  if (move && /struct_tag=0x1(%3A%3A|::)(nft|collection)/.test(url)) return move[1];
  const wasm = /^\/cosmwasm\/wasm\/v1\/contract\/([a-z0-9]+)(\/smart\/.+)?$/.exec(path);
  if (wasm) return wasm[1];
  if (method === 'POST' && path === '/minievm/evm/v1/call')
    return (JSON.parse(body) as { contract_addr: string }).contract_addr;
  return undefined;
}

async function forward(target: string, req: http.IncomingMessage, body: string) {
  const headers: Record<string, string> = {};
  for (const name of ['x-cosmos-block-height', 'content-type']) {
    const v = req.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  const res = await fetch(target + req.url, {
    method: req.method ?? 'GET',
    headers,
    ...(req.method === 'POST' ? { body } : {}),
  });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? 'application/json',
    body: await res.text(),
  };
}
