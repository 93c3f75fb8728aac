import { once } from 'node:events';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { framedSocket, framerOf, MessageFramer } from './pg-socket.js';

/** A backend message: code, int32 length (counting itself), body. */
function message(code: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(code, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** Distinct bodies, so a message overwritten by a later read shows. */
const body = (i: number, length: number) => Buffer.alloc(length, `${i}:abcdefghij;`);

/** Delivers `stream` to the framer the way the socket does: into readTarget(), at most `chunk` at a time. */
function feed(framer: MessageFramer, stream: Buffer, chunk: number): Buffer[] {
  const seen: Buffer[] = [];
  framer.onMessage = (code, offset, length, bytes) => {
    seen.push(message(String.fromCharCode(code), Buffer.from(bytes.subarray(offset, offset + length - 4))));
  };
  for (let at = 0; at < stream.length;) {
    const target = framer.readTarget();
    if (target.length === 0) throw new Error('the framer left no room for the next read');
    const n = Math.min(chunk, target.length, stream.length - at);
    stream.copy(target, 0, at, at + n);
    at += n;
    framer.received(n);
  }
  return seen;
}

describe('MessageFramer', () => {
  const messages = [10, 3000, 0, 70_000, 5, 250_000, 12].map((n, i) => message('D', body(i, n)));
  const stream = Buffer.concat(messages);

  it.each([1, 7, 4096, 65_536, 1 << 20])(
    'cuts a stream read %i bytes at a time into its messages',
    (chunk) => {
      const seen = feed(new MessageFramer(64 * 1024), stream, chunk);
      expect(seen.length).toBe(messages.length);
      seen.forEach((m, i) => expect(m.equals(messages[i]!)).toBe(true));
    },
  );

  it('holds a message larger than its buffer, then returns to its size', () => {
    const framer = new MessageFramer(1024);
    const big = message('D', body(1, 10_000));
    const small = message('C', body(2, 20));
    const seen = feed(framer, Buffer.concat([big, small]), 700);
    expect(seen.map((m) => m.length)).toEqual([big.length, small.length]);
    expect(seen[0]!.equals(big)).toBe(true);
    expect(framer.readTarget().length).toBe(1024);
  });
});

describe('framedSocket', () => {
  it('delivers what a server sends, in order, and closes like a socket', async () => {
    const messages = Array.from({ length: 40 }, (_, i) => message('D', body(i, 7_001 * (i % 5))));
    const server = net.createServer((s) => s.end(Buffer.concat(messages)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket = framedSocket();
    const seen: Buffer[] = [];
    framerOf(socket)!.onMessage = (code, offset, length, bytes) => {
      seen.push(message(String.fromCharCode(code), Buffer.from(bytes.subarray(offset, offset + length - 4))));
    };
    socket.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await once(socket, 'close');
    server.close();
    expect(seen.length).toBe(messages.length);
    seen.forEach((m, i) => expect(m.equals(messages[i]!)).toBe(true));
    expect(framerOf(new net.Socket())).toBeUndefined();
  });
});
