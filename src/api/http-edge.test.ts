import { PassThrough } from 'node:stream';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClientErrorHandler, DEFAULT_EDGE_LIMITS } from './http-edge.js';

/** A socket stand-in that records what is written to it and whether it was destroyed. */
function fakeSocket(response?: { _headerSent: boolean }) {
  const stream = new PassThrough();
  const written: string[] = [];
  stream.on('data', (chunk: Buffer) => written.push(chunk.toString('latin1')));
  return { socket: Object.assign(stream, { _httpMessage: response }) as unknown as Socket, written, stream };
}

const parseError = Object.assign(new Error('Parse Error'), {
  code: 'HPE_INVALID_METHOD',
  rawPacket: Buffer.from('FOO / HTTP/1.1\r\n\r\n'),
});

describe('client error handler', () => {
  const handle = createClientErrorHandler(DEFAULT_EDGE_LIMITS);

  it('answers a parse error on an idle connection with a JSON error and Connection: close', async () => {
    const { socket, written, stream } = fakeSocket();
    handle(parseError, socket);
    await new Promise((resolve) => stream.once('end', resolve));
    expect(written.join('')).toMatch(
      /^HTTP\/1\.1 501 Not Implemented\r\n[\s\S]*Connection: close\r\n\r\n\{"code":12,/,
    );
  });

  it('writes nothing into a response already under way: the connection is closed instead', () => {
    const { socket, written } = fakeSocket({ _headerSent: true });
    handle(parseError, socket);
    expect(socket.destroyed).toBe(true);
    expect(written).toEqual([]);
  });
});
