import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createPostgresDb } from './db.js';

/*
 * Faults seen by the API's pool (textAsBytes: framed socket, pg-socket.ts) must end as they do on
 * pg's own socket: a stand-in server, the same statement through both pools, the same error.
 */

function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

const ready = message('Z', Buffer.from('I'));
const loginOk = Buffer.concat([message('R', Buffer.alloc(4)), ready]);
const terminated = message(
  'E',
  Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0'),
);

/** RowDescription of one `text` column named v. */
function textColumn(): Buffer {
  const field = Buffer.alloc(18);
  field.writeInt32BE(25, 6); // type oid: text
  field.writeInt16BE(-1, 10);
  field.writeInt32BE(-1, 12);
  const count = Buffer.alloc(2);
  count.writeInt16BE(1);
  return message('T', Buffer.concat([count, Buffer.from('v\0'), field]));
}

function dataRow(value: Buffer): Buffer {
  const head = Buffer.alloc(6);
  head.writeInt16BE(1);
  head.writeInt32BE(value.length, 2);
  return message('D', Buffer.concat([head, value]));
}

/** Answers `answer(socket)` to the first query of every connection; `startup` handles the first packet. */
async function standIn(startup: (socket: Socket, packet: Buffer) => void, answer: (socket: Socket) => void) {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let started = false;
    socket.on('data', (chunk) => {
      if (!started) return void ((started = true), startup(socket, chunk));
      if (chunk[0] === 0x51 /* Q */) answer(socket);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `postgres://stand-in@127.0.0.1:${(server.address() as AddressInfo).port}/db`,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** The error of `sql` through a pool with and without textAsBytes. */
async function errorsOf(url: string, run: (db: ReturnType<typeof createPostgresDb>) => Promise<unknown>) {
  const errors = [];
  for (const textAsBytes of [false, true]) {
    const db = createPostgresDb({ url, maxConnections: 1, textAsBytes });
    errors.push(
      await run(db).then(
        () => undefined,
        (err: unknown) => err,
      ),
    );
    await db.close();
  }
  return errors as { code: string; message: string; cause?: { code?: string; message?: string } }[];
}

describe('the bytes pool under connection faults', () => {
  it('a server terminated in the middle of a 1 MB page: the FATAL reaches the query, as on pg', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => dataRow(Buffer.alloc(10_000, `row ${i};`)));
    // Sent in pieces, the FATAL behind the last one: several framed reads, a message split across them.
    const server = await standIn(
      (socket) => socket.write(loginOk),
      (socket) => {
        const all = Buffer.concat([textColumn(), ...rows, terminated]);
        for (let at = 0; at < all.length; at += 99_999) socket.write(all.subarray(at, at + 99_999));
        socket.end();
      },
    );
    try {
      const [plain, bytes] = await errorsOf(
        server.url,
        (db) => db.queryBytes?.('SELECT v') ?? db.query('SELECT v'),
      );
      expect(plain).toMatchObject({ code: 'db_unavailable', cause: { code: '57P01' } });
      expect(bytes).toMatchObject({ code: plain!.code, message: plain!.message, cause: { code: '57P01' } });
    } finally {
      server.close();
    }
  });

  it('TLS asked for: pg negotiates it on its own socket (a server without TLS says no, as on pg)', async () => {
    // The answer to SSLRequest is read as a 'data' event, which a framed socket never emits: were
    // it used here, the connection would wait forever instead of failing.
    const server = await standIn(
      (socket) => socket.write('N'),
      () => undefined,
    );
    try {
      const [plain, bytes] = await errorsOf(`${server.url}?sslmode=verify-full`, (db) =>
        db.query('SELECT 1'),
      );
      expect(plain?.cause?.message).toBe('The server does not support SSL connections');
      expect(bytes).toMatchObject({
        code: plain!.code,
        message: plain!.message,
        cause: { message: plain!.cause!.message },
      });
    } finally {
      server.close();
    }
  });
});
