import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createPostgresTestDb } from '../../../test/helpers/db.js';
import { databaseUrlRequirement, needs } from '../../../test/helpers/requirements.js';
import { createPostgresDb } from './db.js';

const url = process.env.TEST_DATABASE_URL;

describe.runIf(needs(databaseUrlRequirement()))(
  'PostgreSQL pool with prepared statements (API sessions)',
  () => {
    it('reuses one named statement across parameters, and survives a migration that changes its rows', async () => {
      const { db: admin, url: dbUrl, dispose } = await createPostgresTestDb(url!, { migrate: false });
      const reader = createPostgresDb({ url: dbUrl, maxConnections: 1, preparedStatements: true });
      try {
        await admin.exec(
          'CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, $$a$$), (2, $$b$$)',
        );
        const sql = 'SELECT * FROM t WHERE id = $1';
        expect((await reader.query(sql, [1])).rows).toEqual([{ id: 1, v: 'a' }]);
        expect((await reader.query(sql, [2])).rows).toEqual([{ id: 2, v: 'b' }]);
        const prepared = await reader.query<{ n: number }>(
          "SELECT count(*)::int8 AS n FROM pg_prepared_statements WHERE statement = 'SELECT * FROM t WHERE id = $1'",
        );
        expect(prepared.rows[0]?.n).toBe(1);
        // The connection's cached plan now returns the wrong row type; the query must still answer.
        await admin.exec('ALTER TABLE t ADD COLUMN w int DEFAULT 7');
        expect((await reader.query(sql, [1])).rows).toEqual([{ id: 1, v: 'a', w: 7 }]);
      } finally {
        await reader.close();
        await dispose();
      }
    });
  },
);

/** One backend message: type byte, int32 length (itself included), body. */
function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

const readyForQuery = message('Z', Buffer.from('I'));
const terminated = message(
  'E',
  Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0'),
);

/**
 * A PostgreSQL stand-in that accepts any login and answers each simple query with an empty
 * result; the first answer carries, in the same write, the FATAL that pg_terminate_backend sends.
 */
async function serverTerminatingAfterFirstAnswer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let answered = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    let startedUp = false;
    socket.on('data', (chunk) => {
      if (!startedUp) {
        startedUp = true;
        socket.write(Buffer.concat([message('R', Buffer.alloc(4)), readyForQuery]));
        return;
      }
      const done = Buffer.concat([message('C', Buffer.from('SELECT 0\0')), readyForQuery]);
      if (chunk[0] !== 0x51 /* Q */) return;
      if (answered++ > 0) return void socket.write(done);
      socket.end(Buffer.concat([done, terminated]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `postgres://stand-in@127.0.0.1:${port}/db`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('PostgreSQL connection lost at the moment the pool hands it out', () => {
  it('fails that transaction as retryable instead of crashing the process', async () => {
    const server = await serverTerminatingAfterFirstAnswer();
    const db = createPostgresDb({ url: server.url, maxConnections: 1 });
    try {
      // The transaction waits for the only connection; it gets it while the FATAL is still unread.
      const first = db.query('SELECT 1');
      const waiting = db.transaction((tx) => tx.query('SELECT 2'));
      await expect(first).resolves.toEqual({ rows: [] });
      await expect(waiting).rejects.toMatchObject({ code: 'db_unavailable', retryable: true });
      // The lost connection was discarded: the next statement gets a fresh one.
      await expect(db.query('SELECT 3')).resolves.toEqual({ rows: [] });
    } finally {
      await db.close();
      await server.close();
    }
  });
});
