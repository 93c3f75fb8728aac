import { once } from 'node:events';
import { get } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, type Harness } from './harness.js';
import { editStoredTxs, storedTxTexts } from '../helpers/stored-tx.js';

/*
 * The list routes splice stored JSON into the body as is (src/api/render.ts joinJson), as
 * strings or, on a read path that skips decoding, as the bytes the server sent. Memos with
 * 2-, 3- and 4-byte UTF-8 characters must come out exactly as stored, also in a row large enough
 * (~0.5 MB) to span many socket reads, so that characters straddle the reads' boundaries. The
 * expected text is the stored column read back through the driver's ordinary (decoding) path.
 */
const MEMOS = ['café é', '漢字テスト', 'emoji 😀🚀 and "quotes" \\ and \u2028'];
/** Repeated to ~0.5 MB: a 4-byte emoji after an odd number of bytes lands across read boundaries. */
const HUGE_MEMO = `x${'é漢😀'.repeat(60_000)}`;

describe.each(testDbFactories())('stored JSON with non-ASCII text on $name', (factory) => {
  let h: Harness;
  let stored: Map<number, string>;
  beforeAll(async () => {
    h = await createHarness(factory, { vm: 'move', blocks: 12 });
    const { rows } = await h.db.query<{ sequence: number }>('SELECT sequence FROM tx ORDER BY sequence');
    for (const [i, { sequence }] of rows.entries()) {
      const memo = i === 3 ? HUGE_MEMO : MEMOS[i % MEMOS.length]!;
      await editStoredTxs(h.db, 'sequence = $1', [sequence], (text) =>
        text.replaceAll('"memo":"a<b>&c"', `"memo":${JSON.stringify(memo)}`),
      );
    }
    stored = new Map((await storedTxTexts(h.db)).map((r) => [r.sequence, r.data]));
  });
  afterAll(async () => {
    await h?.dispose();
  });

  /** The answer's bytes equal its `txs` rebuilt from the stored texts, byte for byte. */
  async function expectStoredBytes(url: string): Promise<number> {
    const res = await h.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(res.body) as { txs: { height: string }[]; pagination: unknown };
    const sequences = body.txs.map((tx) => sequenceOf(tx));
    const texts = sequences.map((s) => stored.get(s)!);
    const expected = `{"txs":[${texts.join(',')}],"pagination":${JSON.stringify(body.pagination)}}`;
    expect(res.rawPayload.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    return texts.length;
  }

  /** Each seeded tx's JSON is unique by hash; the stored map gives its sequence. */
  function sequenceOf(tx: unknown): number {
    const hash = (tx as { txhash: string }).txhash;
    for (const [sequence, text] of stored) if (text.includes(`"txhash":"${hash}"`)) return sequence;
    throw new Error(`tx ${hash} is not stored`);
  }

  it('all txs, every memo intact (one 0.5 MB row among them)', async () => {
    const n = await expectStoredBytes('/indexer/tx/v1/txs?pagination.limit=100');
    expect(n).toBe(stored.size);
    const res = await h.get('/indexer/tx/v1/txs?pagination.limit=100');
    const memos = (res.json as { txs: { tx: { body: { memo: string } } }[] }).txs.map((t) => t.tx.body.memo);
    for (const memo of [...MEMOS, HUGE_MEMO]) expect(memos).toContain(memo);
  });

  it('an account page, a block page and a 1-tx page', async () => {
    const signer = h.chain.txs[0]!.signer;
    await expectStoredBytes(`/indexer/tx/v1/txs/by_account/${signer}?pagination.limit=100`);
    await expectStoredBytes(`/indexer/tx/v1/txs/by_height/${h.chain.txs[3]!.height}`);
    await expectStoredBytes('/indexer/tx/v1/txs?pagination.limit=1&pagination.reverse=true');
  });

  it('over a real socket, a page still being sent keeps its bytes while the next page is built', async () => {
    // Page memory is reused once an answer is sent (body-pool.ts). Reused too early, the next
    // page (same size, other order) would overwrite the tail of one a slow client is still reading.
    // Last test: it makes the first 16 rows huge (~4 MB pages, more than the socket buffers hold).
    await editStoredTxs(h.db, 'sequence <= 16', [], (text) =>
      text.replaceAll('"memo":', `"padding":${JSON.stringify(HUGE_MEMO)},"memo":`),
    );
    const [first, second] = ['true', 'false'].map(
      (r) => `/indexer/tx/v1/txs?pagination.limit=100&pagination.reverse=${r}`,
    );
    // Rows are immutable for the API (no writer updates them), so h.app's row cache still holds the
    // rows as they were: a fresh app, with its own cache, serves the rewritten ones.
    const app = await h.appWith({});
    const expected = (await app.inject({ url: first! })).rawPayload;
    const base = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
    const slow = connect(Number(base.port), '127.0.0.1');
    slow.write(`GET ${first} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`);
    const chunks: Buffer[] = [(await once(slow, 'data'))[0] as Buffer];
    slow.pause(); // the server has answered and is blocked on this socket
    expect(await statusWithoutKeepAlive(`${base.origin}${second}`)).toBe(200);
    slow.on('data', (chunk: Buffer) => chunks.push(chunk));
    slow.resume();
    await once(slow, 'end');
    const raw = Buffer.concat(chunks);
    const body = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
    expect(expected.length).toBeGreaterThan(4_000_000);
    expect(body.length).toBe(expected.length);
    expect(body.equals(expected)).toBe(true);
  });
});

/**
 * A GET on a connection of its own that closes with the answer, so nothing of this test is left
 * open when the app closes (a kept-alive connection of fetch's pool can hold a server's close up to
 * its keep-alive timeout).
 */
async function statusWithoutKeepAlive(url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}
