import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { createInProcessFeed } from '../../shared/commit-feed.js';
import { pino } from 'pino';
import { silentLogger } from '../../shared/logger.js';
import { faultyDb, gateDb } from '../../../test/api/gated-db.js';
import type { Db } from '../../store/driver/db.js';
import type { BlockReader } from '../../store/readers/blocks.js';
import { createStreamReader, type StreamReader } from '../../store/readers/stream.js';
import { createAccountDictionary, type Dictionary } from '../../store/writers/dictionary.js';
import { createStreamHub, type StreamHub } from './hub.js';
import { createStreamMetrics } from './metrics.js';
import { createSubscriber, type StreamFilter, type Subscriber } from './subscriber.js';

/**
 * The hub on a real database (PGlite), fed by commits written the way ingest writes them (the
 * account dictionary's own writer, edges and checkpoint in one transaction), with subscribers on
 * real sockets.
 */
let db: Db;
let dispose: () => Promise<void>;
beforeEach(async () => {
  ({ db, dispose } = await testDbFactories()[0]!.create());
});
afterEach(() => dispose());

interface Chain {
  /** One committed height: its txs (each with its accounts, the first signing) and the checkpoint. */
  commit(txs: { accounts: Buffer[]; bytes?: number }[]): Promise<number>;
  sequence: number;
}

/** Writes blocks as ingest does; `writer` is the block writer's dictionary (it caches what it interned). */
function chainOn(writer: Dictionary<Uint8Array>, committed: () => void): Chain {
  let height = 0;
  const chain: Chain = {
    sequence: 0,
    async commit(txs) {
      height += 1;
      await db.transaction(async (tx) => {
        const ids = await writer.resolve(
          tx,
          txs.flatMap((t) => t.accounts),
        );
        // One statement per table (as ingest batches them): a commit of thousands of txs is quick.
        const rows = {
          sequence: [] as number[],
          hash: [] as Buffer[],
          signer: [] as number[],
          data: [] as string[],
        };
        const edges = { account: [] as number[], sequence: [] as number[], signer: [] as boolean[] };
        for (const t of txs) {
          chain.sequence += 1;
          rows.sequence.push(chain.sequence);
          rows.hash.push(randomBytes(32));
          rows.signer.push(ids.get(t.accounts[0]!.toString('hex'))!);
          rows.data.push(JSON.stringify({ height: String(height), pad: 'x'.repeat(t.bytes ?? 16) }));
          for (const [i, account] of t.accounts.entries()) {
            edges.account.push(ids.get(account.toString('hex'))!);
            edges.sequence.push(chain.sequence);
            edges.signer.push(i === 0);
          }
        }
        await tx.query(
          `INSERT INTO tx (sequence, hash, height, signer_id, data)
             SELECT s, h, $3, sg, d FROM unnest($1::bigint[], $2::bytea[], $4::bigint[], $5::text[]) AS u(s, h, sg, d)`,
          [rows.sequence, rows.hash, height, rows.signer, rows.data],
        );
        await tx.query(
          `INSERT INTO tx_accounts (account_id, sequence, signer)
             SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::boolean[])`,
          [edges.account, edges.sequence, edges.signer],
        );
        await tx.query(
          `INSERT INTO checkpoint (stream, height, tx_sequence, updated_at) VALUES ('blocks', $1, $2, now())
             ON CONFLICT (stream) DO UPDATE SET height = $1, tx_sequence = $2, updated_at = now()`,
          [height, chain.sequence],
        );
      });
      writer.commit();
      committed();
      return height;
    },
  };
  return chain;
}

/** A StreamReader that counts which accounts the hub looks up in the dictionary. */
function countingReader(reader: StreamReader) {
  const asked: string[][] = [];
  const counted: StreamReader = {
    ...reader,
    accountIds: (accounts) => {
      asked.push(accounts.map((a) => Buffer.from(a).toString('hex')));
      return reader.accountIds(accounts);
    },
  };
  return { reader: counted, asked };
}

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

/** A live subscriber of the hub on a real socket, and the ids its client has received. */
async function subscribe(hub: StreamHub, filter: StreamFilter, maxBufferBytes: number) {
  let sub!: Subscriber;
  const slow: string[] = [];
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': open\n\n');
    sub = createSubscriber(res, {
      eventName: 'tx',
      filter,
      lastId: Number.MAX_SAFE_INTEGER,
      minHeight: 0,
      limits: { maxBufferBytes },
      onSlow: () => slow.push('slow'),
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ids: number[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  await new Promise<void>((resolve) => {
    const req = http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (res) => {
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const frames = (rest + chunk).split('\n\n');
        rest = frames.pop()!;
        for (const f of frames) {
          const m = /^id: (\d+)$/m.exec(f);
          if (m) ids.push(Number(m[1]));
        }
        for (const w of [...waiters]) w();
      });
      res.on('close', () => {
        ended = true;
        for (const w of [...waiters]) w();
      });
      res.on('error', () => undefined); // the server closes every stream after each test
      resolve();
    });
    req.on('error', () => undefined);
  });
  while (sub === undefined) await new Promise((resolve) => setImmediate(resolve));
  const from = (await hub.register('txs', sub))!;
  sub.lastId = from;
  expect(await sub.replay((async function* () {})())).toBe('live');
  /** Resolves once the client has id `n` (or its stream ended: the caller's expectations say so). */
  const reached = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!ended && !ids.includes(n)) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  return { sub, ids, slow, reached, from };
}

function hubOn(
  reader: StreamReader,
  feed: ReturnType<typeof createInProcessFeed>,
  logger = silentLogger(),
): StreamHub {
  return createStreamHub({
    reader,
    blocks: {} as BlockReader, // the blocks route is not served here
    chainId: 'test-1',
    feed,
    routes: ['txs'],
    heartbeatMs: 3_600_000,
    metrics: createStreamMetrics(new Registry()),
    logger,
    trustDictionaryGrowth: true,
  });
}

const account = () => randomBytes(20);

describe('stream hub', () => {
  // 2 MB through PGlite and a socket: over a minute on a loaded 2-core machine.
  it('catches up a large backlog without closing a reader that keeps up', { timeout: 240_000 }, async () => {
    const feed = createInProcessFeed();
    const hub = hubOn(createStreamReader({ db }), feed);
    const chain = chainOn(createAccountDictionary(1000), () => feed.committed());
    await chain.commit([{ accounts: [account()] }]);
    const reader = await subscribe(hub, { signerOnly: false }, 65_536);
    // Four chunks' worth (500 txs each) in one commit: ~0.5 MB per chunk against a 64 KB bound,
    // written back to back unless the hub paces them.
    const signer = account();
    await chain.commit(Array.from({ length: 2000 }, () => ({ accounts: [signer], bytes: 1000 })));
    await reader.reached(chain.sequence);
    expect(reader.slow).toEqual([]);
    expect(reader.sub.closed).toBe(false);
    const want = chain.sequence - reader.from;
    expect(want).toBeGreaterThanOrEqual(2000);
    expect(reader.ids).toEqual(Array.from({ length: want }, (_, i) => reader.from + 1 + i));
    await hub.close();
  });

  it('keeps accounts never seen on chain as misses until the dictionary may have grown, and still finds them', async () => {
    const feed = createInProcessFeed();
    const counting = countingReader(createStreamReader({ db }));
    const hub = hubOn(counting.reader, feed);
    const blockWriter = createAccountDictionary(1000);
    const chain = chainOn(blockWriter, () => feed.committed());
    const busy = account();
    await chain.commit([{ accounts: [busy] }]);
    const witness = await subscribe(hub, { signerOnly: false }, 1 << 20);
    const x = account();
    const xHex = x.toString('hex');
    const watcher = await subscribe(hub, { accountHex: xHex, signerOnly: false }, 1 << 20);
    const askedForX = () => counting.asked.filter((hexes) => hexes.includes(xHex)).length;

    // Commits without a new account: after the reads the rule needs, x is no longer asked for.
    for (let i = 0; i < 3; i++) {
      await chain.commit([{ accounts: [busy] }]);
      await witness.reached(chain.sequence);
    }
    const settled = askedForX();
    expect(settled).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      await chain.commit([{ accounts: [busy] }]);
      await witness.reached(chain.sequence);
    }
    expect(askedForX()).toBe(settled);

    // Another writer (as the rich-list stage does) interns x in a transaction of its own, after
    // which the block writer's first tx with x comes: x's stream has it.
    const otherWriter = createAccountDictionary(1000);
    await db.transaction((tx) => otherWriter.resolve(tx, [x]));
    otherWriter.commit();
    await chain.commit([{ accounts: [busy] }]);
    await witness.reached(chain.sequence);
    await chain.commit([{ accounts: [busy, x] }]);
    await watcher.reached(chain.sequence);
    // And an account the block writer interns itself in the commit that brings its first tx.
    const y = account();
    const yWatcher = await subscribe(hub, { accountHex: y.toString('hex'), signerOnly: false }, 1 << 20);
    for (let i = 0; i < 4; i++) {
      await chain.commit([{ accounts: [busy] }]);
      await witness.reached(chain.sequence);
    }
    await chain.commit([{ accounts: [y] }, { accounts: [busy] }]);
    await witness.reached(chain.sequence);
    await yWatcher.reached(chain.sequence - 1);
    expect(watcher.ids).toEqual([chain.sequence - 6]);
    expect(yWatcher.ids).toEqual([chain.sequence - 1]);
    await hub.close();
  });

  it('matches a closed subscriber no more, and the rest as before', async () => {
    const feed = createInProcessFeed();
    const hub = hubOn(createStreamReader({ db }), feed);
    const chain = chainOn(createAccountDictionary(1000), () => feed.committed());
    const a = account();
    await chain.commit([{ accounts: [a] }]);
    const filter = { accountHex: a.toString('hex'), signerOnly: false };
    const kept = await subscribe(hub, filter, 1 << 20);
    const closing = await subscribe(hub, filter, 1 << 20);
    const sent: number[] = [];
    const send = closing.sub.send.bind(closing.sub);
    closing.sub.send = (event) => {
      sent.push(event.id);
      return send(event);
    };
    expect(hub.subscriberCount()).toBe(2);
    closing.sub.closeWith(14, 'done');
    expect(hub.subscriberCount()).toBe(1);
    await chain.commit([{ accounts: [a] }]);
    await kept.reached(chain.sequence);
    expect(kept.ids).toEqual([chain.sequence]);
    expect(sent).toEqual([]);
    await hub.close();
  });
});

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const range = (after: number, upto: number) => Array.from({ length: upto - after }, (_, i) => after + 1 + i);

describe('stream hub: a read that fails (docs/stream.md §4.1)', () => {
  it('retries a failed chunk without a commit to wake it: no duplicate, no gap, the cause logged', async () => {
    const feed = createInProcessFeed();
    const faults = faultyDb(db);
    const log = recordingLogger();
    const hub = hubOn(createStreamReader({ db: faults.db }), feed, log.logger);
    const chain = chainOn(createAccountDictionary(1000), () => feed.committed());
    const a = account();
    await chain.commit([{ accounts: [a] }]);
    const all = await subscribe(hub, { signerOnly: false }, 1 << 20);
    const ofA = await subscribe(hub, { accountHex: a.toString('hex'), signerOnly: false }, 1 << 20);
    // Two chunks (500 txs each) in one commit, then no commit at all: only the hub's own retry
    // can deliver. The second chunk's rows fail once; on the retry its account edges (read after
    // its rows) fail, then the position read, then the edges again.
    const faulted = Promise.all([
      faults.arm({ sql: /FROM tx\s+WHERE sequence >/, skip: 1, times: 1 }),
      faults.arm({ sql: /FROM tx_accounts/, skip: 1, times: 2 }),
      faults.arm({ sql: /FROM checkpoint/, skip: 2, times: 1 }),
    ]);
    const txs = Array.from({ length: 600 }, (_, i) => ({ accounts: i % 3 === 0 ? [a] : [account()] }));
    await chain.commit(txs);
    await faulted;
    const first = chain.sequence - 599;
    await Promise.all([all.reached(chain.sequence), ofA.reached(first + 597)]);
    expect(all.ids).toEqual(range(all.from, chain.sequence));
    expect(ofA.ids).toEqual(Array.from({ length: 200 }, (_, k) => first + 3 * k));
    const warned = log.lines.filter((l) => l.msg === 'stream could not read the new commits; retrying');
    expect(warned).toHaveLength(4);
    expect(warned[0]!.error).toEqual({
      code: 'db_error',
      message: 'database error',
      cause: { code: 'XX000', message: 'injected fault' },
    });
    await hub.close();
  });

  it('starts where the chain is when its first position read fails', async () => {
    const feed = createInProcessFeed();
    const faults = faultyDb(db);
    const chain = chainOn(createAccountDictionary(1000), () => feed.committed());
    for (let i = 0; i < 3; i++) await chain.commit([{ accounts: [account()] }]);
    const faulted = faults.arm({ sql: /FROM checkpoint/, times: 2 });
    const hub = hubOn(createStreamReader({ db: faults.db }), feed);
    await faulted;
    const all = await subscribe(hub, { signerOnly: false }, 1 << 20);
    expect(all.from).toBe(chain.sequence);
    await chain.commit([{ accounts: [account()] }]);
    await all.reached(chain.sequence);
    expect(all.ids).toEqual([chain.sequence]);
    await hub.close();
  });

  it('closes only once the read under way has ended, so the pool can close after it', async () => {
    const feed = createInProcessFeed();
    const chain = chainOn(createAccountDictionary(1000), () => feed.committed());
    await chain.commit([{ accounts: [account()] }]);
    // Made after the first commit: the gate holds the next chunk read, the second commit's.
    const gated = gateDb(db, (sql) => /FROM tx\s+WHERE sequence >/.test(sql));
    const hub = hubOn(createStreamReader({ db: gated.db }), feed);
    const all = await subscribe(hub, { signerOnly: false }, 1 << 20);
    await chain.commit([{ accounts: [account()] }]);
    await gated.entered;
    let closed = false;
    const closing = hub.close().then(() => (closed = true));
    // Everything queued on the event loop runs: the close is still waiting for the held read.
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    gated.release();
    await closing;
    await all.reached(-1); // the stream ended (the shutdown's error event)
    expect(all.ids).toEqual([chain.sequence]);
  });
});
