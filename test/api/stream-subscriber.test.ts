import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSubscriber, type StreamEvent, type Subscriber } from '../../src/api/stream/subscriber.js';

/** The smallest bound API_STREAM_MAX_BUFFER_BYTES accepts. */
const MAX_BUFFER = 65_536;
const EVENT_BYTES = 16_384;

/** One SSE response on a real socket, its subscriber live (no replay), and the raw client. */
async function openPair(): Promise<{
  sub: Subscriber;
  client: Socket;
  text: () => string;
  ended: Promise<void>;
}> {
  let onResponse!: (res: ServerResponse) => void;
  const responded = new Promise<ServerResponse>((resolve) => (onResponse = resolve));
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    onResponse(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  client.write('GET / HTTP/1.0\r\n\r\n');
  let received = '';
  client.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
  const ended = new Promise<void>((resolve) => client.once('close', () => resolve()));
  const res = await responded;
  const sub = createSubscriber(res, {
    eventName: 'tx',
    filter: { signerOnly: false },
    lastId: 0,
    minHeight: 0,
    limits: { maxBufferBytes: MAX_BUFFER },
    onSlow: () => undefined,
  });
  await sub.replay((async function* () {})());
  return { sub, client, text: () => received, ended };
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

const event = (id: number): StreamEvent => ({
  id,
  height: id,
  data: `"${String(id).padEnd(EVENT_BYTES, '.')}"`,
});
const idsIn = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('stream subscriber send bound', () => {
  it('a client that reads gets a burst far larger than the bound, whole and in order, and stays open', async () => {
    const { sub, text } = await openPair();
    const count = 1_000; // 16 MB written in one go, as the hub writes a chunk while catching up
    for (let id = 1; id <= count; id++) sub.send(event(id));
    await until(() => sub.closed || text().includes(`id: ${count}\n`));
    await until(() => sub.closed || text().endsWith('\n\n'));
    expect(text()).not.toContain('event: error');
    expect(sub.closed).toBe(false);
    expect(idsIn(text())).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });

  it('a client that does not read is closed as a slow consumer before a later chunk', async () => {
    const { sub, client, text, ended } = await openPair();
    client.pause();
    let id = 0;
    // Bursts with the event loop turning in between, as the hub does between chunks; 64 MB at most.
    while (!sub.closed && id < 4_096) {
      // The hub checks every subscriber before each chunk, then writes the chunk.
      sub.checkKeepingUp();
      for (let i = 0; i < 64 && !sub.closed; i++) sub.send(event(++id));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(sub.closed).toBe(true);
    client.resume();
    await ended;
    expect(text()).toContain('"slow consumer: resume with Last-Event-ID"');
    // What did reach the client is a gap-free prefix: the resume point is its last id.
    const ids = idsIn(text());
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
  });
});
