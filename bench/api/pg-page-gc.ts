/**
 * Garbage per 100-tx page on the API pool's read path alone (issue 24): `queryBytes` of a page of
 * 101 stored-JSON rows (6.6 KB each, as on the bench database) from a PostgreSQL stand-in in the
 * same process that writes one prepared answer, so no database and no HTTP cost is measured. The
 * figures are collections per 1,000 pages (perf_hooks 'gc' entries) and CPU per page; the counts do
 * not depend on how loaded the host is. Run it against another checkout's code with --src (a path
 * relative to this repository, e.g. a worktree made with `git worktree add ../ref <commit>`).
 *
 *   npx tsx bench/pg-page-gc.ts --src ../other-checkout --pages 2000
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    src: { type: 'string', default: '.' },
    pages: { type: 'string', default: '2000' },
    rows: { type: 'string', default: '101' },
    'row-bytes': { type: 'string', default: '6600' },
  },
});

function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

/** RowDescription (one text column), the rows, CommandComplete, ReadyForQuery. */
function pageAnswer(rows: number, rowBytes: number): Buffer {
  const field = Buffer.alloc(18);
  field.writeInt32BE(25, 6);
  field.writeInt16BE(-1, 10);
  field.writeInt32BE(-1, 12);
  const head = Buffer.from([0, 1]);
  const description = message('T', Buffer.concat([head, Buffer.from('v\0'), field]));
  const row = (i: number) => {
    const value = Buffer.alloc(rowBytes, `{"n":${i},"memo":"é漢😀"}`);
    const lengths = Buffer.alloc(6);
    lengths.writeInt16BE(1);
    lengths.writeInt32BE(value.length, 2);
    return message('D', Buffer.concat([lengths, value]));
  };
  const done = message('C', Buffer.from(`SELECT ${rows}\0`));
  return Buffer.concat([description, ...Array.from({ length: rows }, (_, i) => row(i)), done, ready]);
}

const ready = message('Z', Buffer.from('I'));
const answer = pageAnswer(Number(args.rows), Number(args['row-bytes']));
const server = createServer((socket) => {
  let started = false;
  socket.on('data', (chunk) => {
    if (!started)
      return void ((started = true), socket.write(Buffer.concat([message('R', Buffer.alloc(4)), ready])));
    if (chunk[0] === 0x51 /* Q */) socket.write(answer);
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');

// The driver's place in today's layout, then in checkouts older than the store's rooms.
const dbModule = ['src/store/driver', 'src/store']
  .map((folder) => path.resolve(args.src ?? '.', folder, 'db.ts'))
  .find((file) => existsSync(file));
if (dbModule === undefined)
  throw new Error(`no src/store/driver/db.ts or src/store/db.ts under --src ${args.src}`);
const { createPostgresDb } = (await import(dbModule)) as typeof import('../../src/store/driver/db.js');
const url = `postgres://stand-in@127.0.0.1:${(server.address() as AddressInfo).port}/db`;
const db = createPostgresDb({ url, maxConnections: 1, textAsBytes: true });

const page = async () => {
  const { rows } = await db.queryBytes!<{ v: Buffer }>('SELECT v');
  if (rows.length !== Number(args.rows)) throw new Error(`${rows.length} rows`);
};
for (let i = 0; i < 100; i++) await page();

const gcs = { scavenge: 0, markCompact: 0, ms: 0 };
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    // Node 20 sets `detail` on gc entries; its PerformanceEntry type does not declare it.
    const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcs.markCompact++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gcs.scavenge++;
    gcs.ms += entry.duration;
  }
});
observer.observe({ entryTypes: ['gc'] });
const pages = Number(args.pages);
const cpu = process.cpuUsage();
for (let i = 0; i < pages; i++) await page();
const used = process.cpuUsage(cpu);
await new Promise((resolve) => setImmediate(resolve)); // the last gc entries are delivered async
observer.disconnect();
process.stdout.write(
  `${JSON.stringify({
    src: args.src,
    pages,
    cpuUsPerPage: Math.round((used.user + used.system) / pages),
    scavengesPer1000: (gcs.scavenge * 1000) / pages,
    markCompactsPer1000: (gcs.markCompact * 1000) / pages,
    gcMsPerPage: Math.round((gcs.ms / pages) * 1000) / 1000,
  })}\n`,
);
await db.close();
server.close();
