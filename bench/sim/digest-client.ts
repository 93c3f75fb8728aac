/**
 * The client side of `bench/sim/digest.ts`: asks a running simulator and folds every answer's
 * bytes into one sha256 per surface (request, status and body, in asking order).
 */
import { createHash, type Hash } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import type { SimulatorUrls } from '../../src/sim/types.js';

export interface SurfaceDigest {
  requests: number;
  bytes: number;
  sha256: string;
}

export class Digester {
  private readonly hashes = new Map<string, { hash: Hash; requests: number; bytes: number }>();
  /** Listen addresses (`127.0.0.1:port`) differ between runs; they are hashed as placeholders. */
  private readonly ports: Array<[string, string]>;

  /** `dumpDir`: also append every request and answer to `{dumpDir}/{surface}.txt` (to diff two runs). */
  constructor(
    readonly urls: SimulatorUrls,
    private readonly dumpDir?: string,
  ) {
    if (dumpDir) mkdirSync(dumpDir, { recursive: true });
    this.ports = Object.entries(urls).map(([name, url]) => [new URL(String(url)).host, `<${name}>`]);
  }

  private add(surface: string, request: string, status: number, text: string): string {
    let s = this.hashes.get(surface);
    if (!s) this.hashes.set(surface, (s = { hash: createHash('sha256'), requests: 0, bytes: 0 }));
    let body = text;
    for (const [host, name] of this.ports) body = body.split(host).join(name);
    s.hash.update(`${request}\n${status}\n${body}\n`);
    if (this.dumpDir) appendFileSync(`${this.dumpDir}/${surface}.txt`, `${request}\n${status}\n${body}\n`);
    s.requests++;
    s.bytes += Buffer.byteLength(text);
    return text;
  }

  async get(
    surface: string,
    base: string,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<string> {
    const res = await fetch(base + path, { headers });
    return this.add(surface, `GET ${path} ${JSON.stringify(headers)}`, res.status, await res.text());
  }

  async post(surface: string, base: string, path: string, body: unknown): Promise<string> {
    const text = JSON.stringify(body);
    const res = await fetch(base + path, {
      method: 'POST',
      body: text,
      headers: { 'content-type': 'application/json' },
    });
    return this.add(surface, `POST ${path} ${text}`, res.status, await res.text());
  }

  /** One JSON-RPC batch of `method` over `paramsList`; the answers (result or error) in order. */
  async batch(surface: string, base: string, method: string, paramsList: unknown[]): Promise<unknown[]> {
    const calls = paramsList.map((params, id) => ({ jsonrpc: '2.0', id, method, params }));
    const text = await this.post(surface, base, '', calls);
    const answers = JSON.parse(text) as Array<{ id: number; result?: unknown; error?: unknown }>;
    return answers.sort((a, b) => a.id - b.id).map((a) => a.result ?? a.error);
  }

  /** A JSON-RPC batch in chunks of `size`. */
  async batches(
    surface: string,
    base: string,
    method: string,
    paramsList: unknown[],
    size = 20,
  ): Promise<unknown[]> {
    const out: unknown[] = [];
    for (let i = 0; i < paramsList.length; i += size)
      out.push(...(await this.batch(surface, base, method, paramsList.slice(i, i + size))));
    return out;
  }

  result(): Record<string, SurfaceDigest> {
    const out: Record<string, SurfaceDigest> = {};
    for (const [name, s] of [...this.hashes].sort(([a], [b]) => a.localeCompare(b)))
      out[name] = { requests: s.requests, bytes: s.bytes, sha256: s.hash.digest('hex') };
    return out;
  }
}

/** Every `step`-th integer of [from, to]. */
export function every(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let h = from; h <= to; h += step) out.push(h);
  return out;
}
