import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSubscriber, STALL_MS, type StreamEvent, type Subscriber } from './subscriber.js';

/** A subscriber on a real socket, and the text its client receives. */
async function connected(maxBufferBytes: number, now?: () => number) {
  let sub!: Subscriber;
  const slow: string[] = [];
  const server = http.createServer((_req, res) => {
    sub = createSubscriber(res, {
      eventName: 'tx',
      filter: { signerOnly: false },
      lastId: 0,
      minHeight: 0,
      limits: { maxBufferBytes },
      onSlow: () => slow.push('slow'),
      ...(now ? { now } : {}),
    });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': open\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let text = '';
  const waiters: (() => void)[] = [];
  let response!: http.IncomingMessage;
  const ended = new Promise<void>((resolve) => {
    http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (res) => {
      response = res;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const w of waiters.splice(0)) w();
      });
      res.on('end', resolve);
    });
  });
  await new Promise<void>((resolve) => {
    const wait = () => (sub ? resolve() : setImmediate(wait));
    wait();
  });
  servers.push(server);
  const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  /** Resolves once the client has received `n` events (re-checked on every chunk it reads). */
  const received = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (ids().length >= n ? resolve() : waiters.push(check));
      check();
    });
  return { sub, slow, ended, ids, received, response: (): http.IncomingMessage | undefined => response };
}

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

const event = (id: number, size = 10): StreamEvent => ({ id, height: id, data: 'x'.repeat(size) });
async function* chunks(...events: StreamEvent[][]) {
  yield* events;
}

describe('stream subscriber', () => {
  it('queues live events during its replay and sends each id once, in order', async () => {
    const c = await connected(1 << 20);
    c.sub.send(event(4));
    c.sub.send(event(5));
    expect(await c.sub.replay(chunks([event(1), event(2)], [event(3), event(4)]))).toBe('live');
    c.sub.send(event(5));
    c.sub.send(event(6));
    c.sub.closeWith(14, 'done');
    await c.ended;
    expect(c.ids()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers "behind" when live events outgrow the queue during a replay, instead of closing', async () => {
    const c = await connected(100);
    for (let id = 3; id <= 20; id++) c.sub.send(event(id));
    expect(await c.sub.replay(chunks([event(1), event(2)]))).toBe('behind');
    expect(c.slow).toEqual([]);
    // The caller reads the rest from the database and queues live events again from there.
    c.sub.queueAgain();
    c.sub.send(event(21));
    const again = Array.from({ length: 18 }, (_, i) => event(i + 3));
    expect(await c.sub.replay(chunks(again))).toBe('live');
    c.sub.send(event(22));
    c.sub.closeWith(14, 'done');
    await c.ended;
    expect(c.ids()).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
  });

  it('does not count one large chunk against a reader that takes it', async () => {
    const c = await connected(65_536);
    expect(await c.sub.replay(chunks())).toBe('live');
    // One chunk far larger than the bound, written in one go: checked again before the next
    // chunk, once the reader has taken it, it is not slow. (A reader that stops reading is closed:
    // test/api/stream.test.ts pauses one.)
    for (let id = 1; id <= 100; id++) c.sub.send(event(id, 8192));
    await c.received(100);
    c.sub.checkKeepingUp();
    expect(c.sub.closed).toBe(false);
    expect(c.slow).toEqual([]);
    c.sub.closeWith(14, 'done');
    await c.ended;
    expect(c.ids()).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('closes a reader whose socket flushes nothing for STALL_MS with more than the bound queued, not before', async () => {
    let t = 0;
    const c = await connected(65_536, () => t);
    expect(await c.sub.replay(chunks())).toBe('live');
    while (c.response() === undefined) await new Promise((resolve) => setImmediate(resolve));
    c.response()!.pause();
    // Fill the kernel's buffers and more than the bound behind them (below the hard cap).
    let id = 0;
    while (!c.sub.backedUp() && !c.sub.closed) {
      c.sub.send(event(++id, 8192));
      c.sub.checkKeepingUp();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(c.sub.closed).toBe(false);
    // The clock only moves here, 250 ms per check: closed once nothing moved for STALL_MS.
    while (!c.sub.closed && t < 100 * STALL_MS) {
      t += 250;
      c.sub.checkKeepingUp();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(c.sub.closed).toBe(true);
    expect(c.slow).toEqual(['slow']);
    expect(t).toBeGreaterThanOrEqual(STALL_MS);
    c.response()!.resume();
    await c.ended;
  });

  it('keeps a reader that takes a backlog many times its bound, however long it takes', async () => {
    let t = 0;
    const c = await connected(65_536, () => t);
    expect(await c.sub.replay(chunks())).toBe('live');
    // 800 KB at once: 12x the bound, under the hard cap; the clock runs 1 s per check.
    for (let id = 1; id <= 100; id++) c.sub.send(event(id, 8192));
    let checks = 0;
    while (c.ids().length < 100) {
      c.sub.checkKeepingUp();
      checks += 1;
      t += 1000;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(checks).toBeGreaterThan(1);
    expect(c.slow).toEqual([]);
    expect(c.sub.closed).toBe(false);
    c.sub.closeWith(14, 'done');
    await c.ended;
    expect(c.ids()).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });
});
