/**
 * The ceiling for bench/stream/subscribers.ts, run as its own process: a bare node:http SSE server that
 * writes what the API wrote, without reading a database or matching filters. Each connection
 * asks for its own rate and event size (`/c?rate=<events/s>&size=<bytes/event>`, measured on the
 * same connection of the API run); every `--tick-ms` (the block interval) it is written its share
 * of events, one write per event as the API does. The id of an event is the time it was written
 * (ms), so the client measures write → delivery with the same parser and clock as for the API.
 *
 *   node --import tsx bench/stream/ceiling.ts --tick-ms 200   # prints "ceiling listening <port>"
 */
import { createServer, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { 'tick-ms': { type: 'string', default: '200' }, port: { type: 'string', default: '0' } },
});
const tickMs = Number(args['tick-ms']);

interface Connection {
  res: ServerResponse;
  perTick: number;
  /** Fractional events carried to the next tick, so the average rate is the one asked for. */
  owed: number;
  data: string;
}

const connections = new Set<Connection>();
/** The frame's fixed part: `id: <ms with 3 decimals>\nevent: tx\ndata: ` and the closing blank line. */
const FRAME_OVERHEAD = 'id: 1700000000000.000\nevent: tx\ndata: \n\n'.length;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const rate = Number(url.searchParams.get('rate') ?? 0);
  const size = Number(url.searchParams.get('size') ?? 0);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write('retry: 2000\n\n');
  const conn: Connection = {
    res,
    perTick: (rate * tickMs) / 1000,
    owed: 0,
    data: JSON.stringify({ pad: 'x'.repeat(Math.max(0, size - FRAME_OVERHEAD - 10)) }),
  };
  connections.add(conn);
  res.on('close', () => connections.delete(conn));
});

/** Writing starts on SIGUSR1, so the idle connections are measured first (as with the API). */
process.once('SIGUSR1', () => setInterval(tick, tickMs));
function tick() {
  const id = (performance.timeOrigin + performance.now()).toFixed(3);
  for (const conn of connections) {
    conn.owed += conn.perTick;
    for (; conn.owed >= 1; conn.owed -= 1) conn.res.write(`id: ${id}\nevent: tx\ndata: ${conn.data}\n\n`);
  }
}

server.listen(Number(args.port), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`ceiling listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => process.exit(0));
