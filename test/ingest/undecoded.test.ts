import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createProtoRegistry } from '../../src/shared/proto/registry.js';
import { UPGRADE_MSG_SCHEMA, UPGRADE_MSG_TYPE, msgNewThing } from '../../src/sim/chain/upgrade.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, TxTruth } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { rerenderUndecoded } from '../../src/store/writers/undecoded-rerender.js';
import { expectCelatoneCanRead } from '../api/clients/celatone-txs.js';
import { celatoneTxs, iwkTxs } from '../api/clients/schemas.js';
import { routeAnswers } from '../api/route-answers.js';
import { testDbFactories } from '../helpers/db.js';
import { capturingLogger } from '../helpers/nft-blocks.js';
import { ingestFrom } from '../helpers/ingest.js';

/**
 * docs/api.md §14 on a Move chain whose upgrade at UPGRADE brings a message type this release does
 * not know and whose node's REST cannot render either. One chain indexed twice: by this release
 * (the type unknown) and by a "later release" (the decoder's registry extended with the type). The
 * first must commit every height, serve those txs in the undecoded form on every route class and
 * count them; its re-render with the later registry, stopped after one batch and resumed, must
 * leave every route answering byte for byte as the later release's fresh index does. One store
 * (PostgreSQL when set): nothing here differs by store or VM but the simulator's model.
 */
const HEAD = 18;
const UPGRADE = 8;
const TX = '/indexer/tx/v1';
const NEW_TYPE = UPGRADE_MSG_TYPE.slice(1);
const factory = testDbFactories().at(-1)!;

type Database = { db: Db; dispose(): Promise<void> };
interface TxJson {
  txhash: string;
  tx: { body: { messages: Record<string, unknown>[] } } & Record<string, unknown>;
}

describe(`txs no decoder knows (${factory.name})`, () => {
  let sim: Simulator;
  let current: Database;
  let later: Database;
  let upgraded: TxTruth[];
  let restUrl: string;
  const captured = capturingLogger();

  beforeAll(async () => {
    sim = createSimulator({
      vm: 'move',
      head: HEAD,
      txsPerBlock: '2-4',
      upgrade: { height: UPGRADE, every: 3 },
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
    });
    const urls = await sim.listen();
    restUrl = urls.rest;
    [current, later] = await Promise.all([factory.create(), factory.create()]);
    await ingestFrom({ db: current.db, vm: 'move', urls, untilHeight: HEAD, logger: captured.logger });
    await ingestFrom({
      db: later.db,
      vm: 'move',
      urls,
      untilHeight: HEAD,
      protoExtensions: [UPGRADE_MSG_SCHEMA],
    });
    upgraded = allTxs(sim).filter((t) => t.msgTypes.includes(NEW_TYPE));
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
    await current?.dispose();
    await later?.dispose();
  });

  it('the chain holds such txs, and the node cannot render their blocks', async () => {
    expect(upgraded.length).toBeGreaterThan(2);
    expect(upgraded.every((t) => t.height >= UPGRADE)).toBe(true);
    const res = await fetch(`${restUrl}/cosmos/tx/v1beta1/txs/block/${upgraded[0]!.height}`);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { message: string }).message).toBe(
      `unable to resolve type URL ${UPGRADE_MSG_TYPE}: tx parse error`,
    );
  });

  it('ingest commits every height and marks exactly those txs undecoded', async () => {
    const stored = await current.db.query<{ hash: string; undecoded: boolean }>(
      `SELECT upper(encode(t.hash, 'hex')) AS hash, u.sequence IS NOT NULL AS undecoded
         FROM tx t LEFT JOIN undecoded_tx u ON u.sequence = t.sequence ORDER BY t.sequence`,
    );
    expect(stored.rows.map((r) => r.hash)).toEqual(allTxs(sim).map((t) => t.hash));
    expect(stored.rows.filter((r) => r.undecoded).map((r) => r.hash)).toEqual(upgraded.map((t) => t.hash));
    const laterMarks = await later.db.query<{ n: number }>('SELECT count(*)::int AS n FROM undecoded_tx');
    expect(laterMarks.rows[0]!.n).toBe(0);
    // One warning per height holding such txs, naming them, the unknown type and the node's words.
    const warnings = captured.lines.filter((l) => String(l['msg']).startsWith('txs stored undecoded'));
    // Blocks are prepared in parallel: the lines come in any order.
    expect((warnings.map((w) => w['txs']).flat() as string[]).sort()).toEqual(
      upgraded.map((t) => t.hash).sort(),
    );
    expect(new Set(warnings.map((w) => w['height']))).toEqual(new Set(upgraded.map((t) => t.height)));
    for (const w of warnings) {
      expect(w['unknown']).toEqual([UPGRADE_MSG_TYPE]);
      expect(w['node']).toBe(`unable to resolve type URL ${UPGRADE_MSG_TYPE}: tx parse error`);
    }
  });

  it('each route class serves them in the documented form, everything else as a decoding release', async () => {
    const [now, then] = await Promise.all([apiOf(current.db, sim), apiOf(later.db, sim)]);
    try {
      for (const truth of upgraded) {
        const served = (await now.json(`${TX}/txs/${truth.hash}`)) as { tx: TxJson };
        const decoded = (await then.json(`${TX}/txs/${truth.hash}`)) as { tx: TxJson };
        expectUndecodedForm(served.tx, decoded.tx, truth);
        const lists = [
          `${TX}/txs/by_height/${truth.height}?pagination.limit=100`,
          `${TX}/txs/by_account/${truth.signer}?pagination.limit=1000`,
          `${TX}/txs?msgs=${NEW_TYPE}&pagination.limit=1000`,
          `${TX}/txs?pagination.limit=1000`,
        ];
        for (const url of lists) {
          const page = (await now.json(url)) as { txs: TxJson[] };
          expect(
            page.txs.find((t) => t.txhash === truth.hash),
            url,
          ).toEqual(served.tx);
        }
      }
      const filtered = (await now.json(`${TX}/txs?msgs=${NEW_TYPE}&pagination.limit=1000`)) as {
        txs: TxJson[];
      };
      expect(filtered.txs.map((t) => t.txhash).sort()).toEqual(upgraded.map((t) => t.hash).sort());
      // What real clients parse: Celatone's and InterwovenKit's schemas accept the page, and
      // every msg_index of an event still names an existing message.
      const celatone = celatoneTxs.parse(filtered);
      iwkTxs.parse(filtered);
      for (const tx of celatone.txs)
        expectCelatoneCanRead(
          tx,
          upgraded.find((t) => t.hash === tx.txhash),
        );
    } finally {
      await Promise.all([now.close(), then.close()]);
    }
  });

  it('/status and /metrics count them; a database without any says nothing', async () => {
    const [now, then] = await Promise.all([apiOf(current.db, sim), apiOf(later.db, sim)]);
    try {
      expect(((await now.json('/status')) as Record<string, unknown>)['undecoded_txs']).toBe(upgraded.length);
      expect(Object.keys((await then.json('/status')) as object)).not.toContain('undecoded_txs');
      expect(await now.text('/metrics')).toMatch(
        new RegExp(`^rollup_indexer_undecoded_txs ${upgraded.length}$`, 'm'),
      );
      expect(await then.text('/metrics')).toMatch(/^rollup_indexer_undecoded_txs 0$/m);
    } finally {
      await Promise.all([now.close(), then.close()]);
    }
  });

  it('a release knowing the type re-renders them in place, resumably: every route then equals its fresh index', async () => {
    // An API running throughout holds the undecoded rows in its row cache (a page read twice).
    const held = await apiOf(current.db, sim);
    const page = `${TX}/txs?msgs=${NEW_TYPE}&pagination.limit=1000`;
    const stale = await held.text(page);
    expect(await held.text(page)).toBe(stale);
    // This release's own registry still cannot render them: nothing changes.
    const unchanged = await rerenderUndecoded(current.db, { registry: createProtoRegistry });
    expect(unchanged).toMatchObject({ rowsRerendered: 0, remaining: upgraded.length, finished: true });

    const laterRegistry = createProtoRegistry([UPGRADE_MSG_SCHEMA]);
    const registry = () => laterRegistry;
    const stop = new AbortController();
    const first = await rerenderUndecoded(current.db, {
      registry,
      batchRows: 2,
      signal: stop.signal,
      onBatch: () => stop.abort(),
    });
    expect(first).toMatchObject({ finished: false, remaining: upgraded.length - first!.rowsRerendered });
    expect(first!.rowsRerendered).toBeGreaterThan(0);
    const rest = await rerenderUndecoded(current.db, { registry, batchRows: 2 });
    expect(rest).toMatchObject({ finished: true, remaining: 0 });
    expect(first!.rowsRerendered + rest!.rowsRerendered).toBe(upgraded.length);
    expect(await rerenderUndecoded(current.db, { registry })).toBeUndefined();

    await expectHeldPageRenewed(held, page, later.db, sim);

    const [rerendered, fresh] = await Promise.all([
      routeAnswers(current.db, sim, HEAD),
      routeAnswers(later.db, sim, HEAD),
    ]);
    expect(rerendered.size).toBeGreaterThan(100);
    expect(rerendered.size).toBe(fresh.size);
    for (const [url, answer] of fresh) expect(rerendered.get(url), url).toBe(answer);
  });
});

/** The undecoded form: each unknown message `{"@type", "value"}`, everything else as decoded. */
function expectUndecodedForm(served: TxJson, decoded: TxJson, truth: TxTruth): void {
  const messages = served.tx.body.messages;
  const known = decoded.tx.body.messages;
  expect(messages.length).toBe(known.length);
  messages.forEach((message, i) => {
    const full = known[i]!;
    if (full['@type'] !== UPGRADE_MSG_TYPE) return expect(message).toEqual(full);
    expect(Object.keys(message)).toEqual(['@type', 'value']);
    expect(full['sender']).toBe(truth.signer);
    // The value is the Any's bytes as the chain carried them: the message the sim encoded.
    const value = msgNewThing(String(full['sender']), Number(full['thing_id'])).value;
    expect(message).toEqual({ '@type': UPGRADE_MSG_TYPE, value: Buffer.from(value).toString('base64') });
  });
  const withoutMessages = (t: TxJson) => ({ ...t, tx: { ...t.tx, body: { ...t.tx.body, messages: [] } } });
  expect(withoutMessages(served)).toEqual(withoutMessages(decoded));
}

/**
 * The held API serves the page as the later release's index does once it has re-read the store
 * identity (at most a second after the batches committed: poll with a deadline), and it did so by
 * dropping its rows: without the re-render moving the identity it would serve them forever.
 */
async function expectHeldPageRenewed(held: Api, page: string, laterDb: Db, sim: Simulator): Promise<void> {
  const reference = await apiOf(laterDb, sim);
  try {
    const want = await reference.text(page);
    const deadline = Date.now() + 15_000;
    let answer = await held.text(page);
    while (answer !== want && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await held.text(page);
    }
    expect(answer).toBe(want);
    expect(await held.text('/metrics')).toMatch(/^rollup_indexer_api_row_cache_drops_total [1-9]/m);
  } finally {
    await Promise.all([held.close(), reference.close()]);
  }
}

function allTxs(sim: Simulator): TxTruth[] {
  return Array.from({ length: HEAD }, (_, i) => sim.truth.block(i + 1).txs).flat();
}

type Api = Awaited<ReturnType<typeof apiOf>>;

/** The API over a database, response cache off (the row cache on, as by default). */
async function apiOf(db: Db, sim: Simulator) {
  const app = await createApiApp({
    options: loadApiOptions({ CHAIN_ID: sim.options.chainId, VM_TYPE: sim.options.vm, API_CACHE: 'false' }),
    db,
    logger: silentLogger(),
    metrics: createMetricsRegistry({ defaultMetrics: false }),
  });
  await app.ready();
  const text = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode, url).toBe(200);
    return res.body;
  };
  return {
    text,
    json: async (url: string) => JSON.parse(await text(url)) as unknown,
    close: () => app.close(),
  };
}
