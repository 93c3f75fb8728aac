import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, type Harness } from './harness.js';

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
      await h.db.query(`UPDATE tx SET data = replace(data, '"memo":"a<b>&c"', $1) WHERE sequence = $2`, [
        `"memo":${JSON.stringify(memo)}`,
        sequence,
      ]);
    }
    const all = await h.db.query<{ sequence: number; data: string }>('SELECT sequence, data FROM tx');
    stored = new Map(all.rows.map((r) => [Number(r.sequence), r.data]));
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

  it('over a real socket, concurrent pages larger than its buffers keep their bytes', async () => {
    // Page memory is reused once an answer is sent (body-pool.ts): reused too early, a later
    // page would overwrite one still being written to a slow socket.
    const urls = [
      '/indexer/tx/v1/txs?pagination.limit=100',
      '/indexer/tx/v1/txs?pagination.limit=100&pagination.reverse=false',
    ];
    const expected = await Promise.all(urls.map(async (url) => (await h.app.inject({ url })).rawPayload));
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const answers = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const res = await fetch(`${base}${urls[i % 2]}`);
        return { i, body: Buffer.from(await res.arrayBuffer()) };
      }),
    );
    for (const { i, body } of answers) expect(body.equals(expected[i % 2]!)).toBe(true);
  });
});
