import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/types.js';
import { LIVE_START_TIMEOUT_MS, useLiveStart, type LiveStart } from '../helpers/live-start.js';
import { createStreamGroup, heightOf, lastHeight, type ReceivedEvent } from '../helpers/stream-client.js';
import { hashOf, truthHashes, type TruthFilter } from '../helpers/stream-truth.js';
import { getTextOnNewConnection } from '../helpers/http-get.js';

/** Ids strictly increasing: nothing repeated, nothing out of order. */
function expectOrdered(events: readonly ReceivedEvent[]) {
  for (let i = 1; i < events.length; i++) expect(events[i]!.id).toBeGreaterThan(events[i - 1]!.id);
}

/**
 * `start` (ingest + API, embedded database) on a live simulated Move chain, with Node's
 * EventSource client: every filter's items equal the simulator's truth, in order, exactly once,
 * across an API process restart that the clients survive by reconnecting with Last-Event-ID.
 */
describe('live streams on start', { timeout: 400_000 }, () => {
  const liveStart = useLiveStart({
    sim: { head: 30, txsPerBlock: '0-8', accounts: 6 },
    env: {
      API_STREAM_HEARTBEAT_MS: '1000',
      // Small, so a reader that stops reading is closed within a few blocks.
      API_STREAM_MAX_BUFFER_BYTES: '65536',
    },
  });
  let sim: Simulator;
  let base: string;
  let started: LiveStart;
  beforeAll(async () => {
    started = await liveStart();
    ({ sim, base } = started);
  }, LIVE_START_TIMEOUT_MS);

  it('each filter equals the truth from its resume point, across an API restart', async () => {
    const txsOf = (h: number) => sim.truth.block(h).txs;
    const account = [...Array(30).keys()].flatMap((i) => txsOf(i + 1)).find((tx) => tx.signer)!.signer;
    const counts = new Map<string, number>();
    for (let h = 1; h <= 30; h++)
      for (const tx of txsOf(h)) for (const m of tx.msgTypes) counts.set(m, (counts.get(m) ?? 0) + 1);
    const msg = [...counts].sort((a, b) => b[1] - a[1])[1]?.[0] ?? [...counts.keys()][0]!;
    const q = (s: string) => `${base}/indexer/stream/v1/${s}`;
    const group = createStreamGroup();
    const blocks = group.record(q('blocks?from_height=1'), 'block');
    const streams: { name: string; filter: TruthFilter; rec: ReturnType<typeof group.record> }[] = [
      { name: 'all', filter: { fromHeight: 1 }, rec: group.record(q('txs?last_event_id=0'), 'tx') },
      {
        name: 'account',
        filter: { account, fromHeight: 1 },
        rec: group.record(q(`txs?account=${account}&from_height=1`), 'tx'),
      },
      {
        name: 'signer',
        filter: { account, signerOnly: true, fromHeight: 1 },
        rec: group.record(q(`txs?account=${account}&is_signer=true&last_event_id=0`), 'tx'),
      },
      {
        name: 'msgs',
        filter: { msg, fromHeight: 1 },
        rec: group.record(q(`txs?msgs=/${msg}&from_height=1`), 'tx'),
      },
      {
        name: 'account+msgs',
        filter: { account, msg, fromHeight: 20 },
        rec: group.record(q(`txs?account=${account}&msgs=${msg}&from_height=20`), 'tx'),
      },
    ];
    const live = group.record(q('txs'), 'tx');
    const passed = (h: number) => () => lastHeight(blocks) >= h;
    const stuck = (h: number, what: string) => () =>
      lastHeight(blocks) >= h ? `${what}: the block stream reached ${h} first` : undefined;

    // The live-only client must have an event before the restart, so it reconnects with
    // Last-Event-ID like the others: the chain is often far past 45 by now (start-up under load),
    // and one with nothing yet reconnects live, possibly after the other streams reached the
    // target — it then has nothing to compare.
    await group.until(() => passed(45)() && live.events.length > 0, stuck(Number.MAX_SAFE_INTEGER, 'never'));
    // Restart the API process (same port and data): the clients reconnect with Last-Event-ID.
    const restartedAt = lastHeight(blocks);
    await started.restart();
    const target = restartedAt + 15;
    await group.until(passed(target), stuck(Number.MAX_SAFE_INTEGER, 'never'));
    // Each stream has everything up to `target`, or went past it short (a client the server
    // closes resumes after its retry delay): the comparison below then shows what is missing.
    for (const s of streams) {
      const want = truthHashes(sim, target, s.filter);
      await group
        .until(
          () => s.rec.events.length >= want.length,
          // Its own stream passing the target: in order, so nothing up to it is still coming. (The
          // block stream is no measure: while ingest catches up after the restart it jumps
          // hundreds of heights per commit, ahead of a stream still replaying.)
          () => (lastHeight(s.rec) > target ? `${s.name}: passed ${target} short` : undefined),
        )
        .catch(() => undefined);
    }
    group.closeAll();

    expectOrdered(blocks.events);
    expect(blocks.events.map((e) => e.id)).toEqual(blocks.events.map((_, i) => i + 1));
    for (const s of streams) {
      expectOrdered(s.rec.events);
      const upto = Math.max(target, heightOf(s.rec.events.at(-1)!));
      const want = truthHashes(sim, upto, s.filter);
      // Everything up to `target` arrived, and nothing after it that the chain does not have.
      expect(s.rec.events.length, s.name).toBeGreaterThanOrEqual(truthHashes(sim, target, s.filter).length);
      expect(s.rec.events.map(hashOf), s.name).toEqual(want.slice(0, s.rec.events.length));
    }
    // The live-only client: a contiguous run of the whole chain from its first event on (it may
    // have gone on past what the 'all' client recorded before the close: that client stops
    // waiting at the target), with the 'all' client's ids wherever both have the item.
    expectOrdered(live.events);
    const chain = truthHashes(sim, heightOf(live.events.at(-1)!), { fromHeight: 1 });
    const first = chain.indexOf(hashOf(live.events[0]!));
    expect(first).toBeGreaterThan(0);
    expect(live.events.map(hashOf)).toEqual(chain.slice(first, first + live.events.length));
    const all = streams[0]!.rec.events.map((e) => e.id);
    const from = all.indexOf(live.events[0]!.id);
    expect(from).toBeGreaterThan(0);
    const overlap = live.events.slice(0, all.length - from).map((e) => e.id);
    expect(overlap).toEqual(all.slice(from, from + overlap.length));
  });

  it('items are the exact JSON the REST routes serve', async () => {
    const group = createStreamGroup();
    const rec = group.record(`${base}/indexer/stream/v1/txs?from_height=2`, 'tx');
    const blocksRec = group.record(`${base}/indexer/stream/v1/blocks?from_height=2`, 'block');
    await group.until(
      () => blocksRec.events.length >= 20 && rec.events.length >= 20,
      () => undefined,
    );
    group.closeAll();
    for (const e of rec.events.slice(0, 20)) {
      const rest = await getTextOnNewConnection(`${base}/indexer/tx/v1/txs/${hashOf(e)}`);
      expect(rest).toBe(`{"tx":${e.data}}`);
    }
    for (const e of blocksRec.events.slice(0, 20)) {
      const rest = await getTextOnNewConnection(`${base}/indexer/block/v1/blocks/${e.id}`);
      expect(rest).toBe(`{"block":${e.data}}`);
    }
  });

  it('closes a reader that stops reading, and its resume loses and repeats nothing', async () => {
    const slowBefore = await slowCloses(base);
    const chunks: Buffer[] = [];
    const res = await new Promise<http.IncomingMessage>((resolve) =>
      http.get(`${base}/indexer/stream/v1/txs?last_event_id=0`, resolve),
    );
    expect(res.headers['content-type']).toBe('text/event-stream');
    res.pause();
    // Condition: the server has counted the close (checked each time a block arrives).
    const group = createStreamGroup();
    const blocks = group.record(`${base}/indexer/stream/v1/blocks`, 'block');
    let closes = slowBefore;
    let asking = false;
    const giveUpAt = sim.head() + 100;
    await group.until(
      () => closes > slowBefore,
      () => {
        // One /metrics request at a time: while ingest catches up, blocks arrive by the hundred
        // and a request per block flooded the API with connections (reset under load).
        if (!asking) {
          asking = true;
          void slowCloses(base)
            .then((n) => (closes = n))
            .finally(() => (asking = false));
        }
        return lastHeight(blocks) > giveUpAt ? 'the paused reader was never closed' : undefined;
      },
    );
    res.on('data', (c: Buffer) => chunks.push(c));
    res.resume();
    await new Promise((resolve) => res.once('end', resolve));
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text).toMatch(
      /event: error\ndata: \{"code":14,"message":"slow consumer: resume with Last-Event-ID"\}\n\n$/,
    );
    const first = parseEvents(text, 'tx');
    const lastId = first.at(-1)!.id;
    const resumed = group.record(`${base}/indexer/stream/v1/txs?last_event_id=${lastId}`, 'tx');
    const upto = heightOf(first.at(-1)!) + 5;
    await group.until(passedBlock(blocks, upto), () => undefined);
    const want = truthHashes(sim, upto, { fromHeight: 1 });
    await group
      .until(
        () => first.length + resumed.events.length >= want.length,
        // The resumed stream passing `upto` (it is in order) means nothing up to it is coming.
        () => (lastHeight(resumed) > upto ? 'resume fell short' : undefined),
      )
      .catch(() => undefined);
    group.closeAll();
    const both = [...first, ...resumed.events];
    expectOrdered(both);
    expect(both.map(hashOf).slice(0, want.length)).toEqual(want);
  });
});

const passedBlock = (blocks: { events: ReceivedEvent[] }, h: number) => () =>
  blocks.events.length > 0 && heightOf(blocks.events.at(-1)!) >= h;

async function slowCloses(base: string): Promise<number> {
  const text = await getTextOnNewConnection(`${base}/metrics`);
  return Number(/^rollup_indexer_stream_slow_closes_total\{route="txs"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/** The `event` events of an SSE body (what a reader got before the server closed it). */
function parseEvents(text: string, event: string): ReceivedEvent[] {
  return text
    .split('\n\n')
    .map((block) =>
      Object.fromEntries(
        block
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      ),
    )
    .filter((f) => f.event === event)
    .map((f) => ({ id: Number(f.id), data: String(f.data) }));
}
