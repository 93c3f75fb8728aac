import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator, TxTruth } from '../../src/sim/types.js';
import { usePageOrigin } from '../helpers/browser.js';
import { LIVE_START_TIMEOUT_MS, useLiveStart, type LiveStart } from '../helpers/live-start.js';
import { chromiumRequirement, needs } from '../helpers/requirements.js';

const browserBinary = await chromiumRequirement();

/**
 * The few DOM calls the page functions below make: they run in the browser, but this file is
 * type-checked as Node code (no DOM lib).
 */
interface DomNode {
  textContent: string | null;
  querySelectorAll(selector: string): ArrayLike<DomNode>;
}
declare const document: DomNode & { querySelector(selector: string): DomNode };

const SHUTDOWN = 'server shutting down: resume with Last-Event-ID';
const SLOW = 'slow consumer: resume with Last-Event-ID';

/** Where the live page's screenshot goes (outside the repository; printed by the test). */
const SCREENSHOT = path.join(tmpdir(), 'test-artifacts', 'live-page.png');

/**
 * The page on another origin: its own script (plain browser JavaScript, no test code in it) opens
 * the two streams on the API named in its `?api=` parameter and records every event in `window`.
 * The txs URL keeps `last_event_id=0`: a browser reconnects to the same URL, so only the
 * Last-Event-ID header it adds can make a resume continue instead of starting over.
 */
const RECORDING_PAGE = `<!doctype html><title>explorer</title><p>explorer</p><script>
  const api = new URLSearchParams(location.search).get('api');
  const rec = (window.recorded = {
    txs: [], blocks: [], opens: { txs: 0, blocks: 0 }, closes: { txs: [], blocks: [] },
  });
  const follow = (route, event, keep) => {
    const name = route.split('?')[0];
    const source = new EventSource(api + '/indexer/stream/v1/' + route);
    source.addEventListener(event, (e) => keep(Number(e.lastEventId), JSON.parse(e.data)));
    // The server's last event before it closes a stream (a network error carries no data).
    source.addEventListener('error', (e) => e.data && rec.closes[name].push(JSON.parse(e.data).message));
    source.onopen = () => rec.opens[name]++;
  };
  follow('txs?last_event_id=0', 'tx', (id, tx) =>
    rec.txs.push({ id, hash: tx.txhash, height: Number(tx.height) }));
  follow('blocks?from_height=1', 'block', (id, b) =>
    rec.blocks.push({ id, hash: b.hash, height: Number(b.height) }));
</script>`;

interface Recorded {
  txs: { id: number; hash: string; height: number }[];
  blocks: { id: number; hash: string; height: number }[];
  opens: { txs: number; blocks: number };
  /** The messages of the `error` events the server closed each stream with. */
  closes: { txs: string[]; blocks: string[] };
}
type PageWindow = { recorded: Recorded };
const recorded = (page: Page) => page.evaluate(() => (globalThis as unknown as PageWindow).recorded);

/** The truth's txs of heights from..to, in chain order. */
function truthTxs(sim: Simulator, from: number, to: number): TxTruth[] {
  const txs: TxTruth[] = [];
  for (let h = from; h <= to; h++) txs.push(...sim.truth.block(h).txs);
  return txs;
}

/** What the live page shows: head cards and tx rows (newest first), read from its DOM. */
interface LiveView {
  chain: string;
  height: number;
  blockTxs: number;
  state: string;
  rows: string[][];
}
const readLivePage = (page: Page): Promise<LiveView> =>
  page.evaluate(() => {
    const text = (s: string) => document.querySelector(s).textContent ?? '';
    return {
      chain: text('#chain'),
      height: Number(text('#height')),
      blockTxs: Number(text('#block-txs')),
      state: text('#state'),
      rows: Array.from(document.querySelector('#txs').querySelectorAll('tr'), (tr) =>
        Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? ''),
      ),
    };
  });

/**
 * The page's rows, oldest first, are a contiguous run of the chain's txs (nothing lost or
 * repeated on the page), each showing its height, hash, first message and result.
 */
function expectRowsAreTruth(sim: Simulator, rows: string[][]) {
  const shown = [...rows].reverse();
  const from = Number(shown[0]![0]);
  const truth = truthTxs(sim, from, Number(shown.at(-1)![0]));
  const start = truth.findIndex((tx) => tx.hash === shown[0]![1]);
  expect(start, `first row ${shown[0]!.join(' ')}`).toBeGreaterThanOrEqual(0);
  const want = truth
    .slice(start, start + shown.length)
    .map((tx) => [
      String(tx.height),
      tx.hash,
      tx.msgTypes[0]!.split('.').pop()!,
      tx.code === 0 ? 'ok' : `failed (${tx.code})`,
    ]);
  expect(shown).toEqual(want);
}

/**
 * Real browsers on `start` (live simulated Move chain; PostgreSQL when it is in the run, else the
 * embedded database): the live page at `/`, and a page on another origin whose own EventSources
 * survive an API process restart on the same port by reconnecting with Last-Event-ID, with nothing
 * lost or repeated (docs/stream.md §5).
 */
/**
 * How long a page waits for a condition (Playwright's default is 30 s): the chain is live, and on a
 * host at load 40 the restarted API took longer than that to deliver the next heights.
 */
const PAGE_WAIT_MS = 120_000;

describe.runIf(needs(browserBinary))('browsers following the live streams', { timeout: 400_000 }, () => {
  const liveStart = useLiveStart({
    // At least one tx a block, so a tx past a height proves the tx stream passed that height.
    sim: { head: 10, txsPerBlock: '1-6', accounts: 6 },
    // The browser waits this long before each reconnect attempt.
    env: { API_STREAM_RETRY_MS: '200' },
    // What the browsers do does not depend on the store (the streams on each: stream.test.ts on
    // PGlite, stream-pg.test.ts on PostgreSQL).
    anyStore: true,
  });
  const pageOrigin = usePageOrigin(RECORDING_PAGE);
  let browser: Browser;
  let sim: Simulator;
  let base: string;
  let started: LiveStart;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: browserBinary.path!, args: ['--no-sandbox'] });
    started = await liveStart();
    ({ sim, base } = started);
  }, LIVE_START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });
  const newPage = async (options?: Parameters<Browser['newPage']>[0]) => {
    const page = await browser.newPage(options);
    page.setDefaultTimeout(PAGE_WAIT_MS);
    return page;
  };

  it('the live page shows the head advancing and new txs arriving through the stream', async () => {
    const page = await newPage({ viewport: { width: 1100, height: 800 } });
    await page.goto(`${base}/`);
    const heightShown = () => Number(document.querySelector('#height').textContent);
    await page.waitForFunction(heightShown);
    const first = await readLivePage(page);
    await page.waitForFunction(
      ([h, rows]) =>
        Number(document.querySelector('#height').textContent) > h! &&
        document.querySelectorAll('#txs tr').length >= rows!,
      [first.height, 12],
    );
    const later = await readLivePage(page);
    expect(later.chain).toBe(sim.options.chainId);
    expect(later.state).toBe('live');
    expect(later.height).toBeGreaterThan(first.height);
    expect(later.height).toBeLessThanOrEqual(sim.head());
    expect(later.blockTxs).toBe(sim.truth.block(later.height).txs.length);
    expectRowsAreTruth(sim, later.rows);
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    // Finished animations: the rows as they look once the arrival highlight has faded.
    await page.screenshot({ path: SCREENSHOT, fullPage: true, animations: 'disabled' });
    process.stdout.write(`live page screenshot: ${SCREENSHOT}\n`);
    await page.close();
  });

  it("a page on another origin: the browser's own reconnect resumes across an API restart", async () => {
    const page = await newPage();
    await page.goto(`${await pageOrigin()}/?api=${encodeURIComponent(base)}`);
    const live = await newPage();
    await live.goto(`${base}/`);
    const blocksPast = (h: number) =>
      page.waitForFunction(
        (height) => ((globalThis as unknown as PageWindow).recorded.blocks.at(-1)?.height ?? 0) > height,
        h,
      );
    await blocksPast(sim.head() + 3);

    // Restart the API process on the same port with the same data; the pages are left alone.
    const restartedAt = sim.head();
    await started.restart();
    const target = restartedAt + 10;
    await blocksPast(target);
    // The tx stream passed `target` too (every block has a tx), so heights up to it are complete.
    await page.waitForFunction(
      (height) => ((globalThis as unknown as PageWindow).recorded.txs.at(-1)?.height ?? 0) > height,
      target,
    );
    // A closed source reopens after the retry delay: wait for any reopen still due.
    await page.waitForFunction(() => {
      const { opens, closes } = (globalThis as unknown as PageWindow).recorded;
      return opens.txs > closes.txs.length && opens.blocks > closes.blocks.length;
    });
    const rec = await recorded(page);

    // Both sources were told the server was stopping and reopened by themselves. A source may
    // also have been closed as slow (seen after the restart: live events queued behind its
    // replay while the new process catches up on the blocks it missed) and resumed from there:
    // every close was followed by exactly one reopen.
    for (const route of ['txs', 'blocks'] as const) {
      const closes = rec.closes[route];
      expect(closes, route).toContain(SHUTDOWN);
      expect(
        closes.filter((m) => m !== SHUTDOWN && m !== SLOW),
        route,
      ).toEqual([]);
      expect(rec.opens[route], `${route}: ${JSON.stringify(closes)}`).toBe(closes.length + 1);
    }
    const upToTarget = rec.txs.filter((t) => t.height <= target);
    expect(upToTarget.map((t) => t.hash)).toEqual(truthTxs(sim, 1, target).map((tx) => tx.hash));
    for (let i = 1; i < rec.txs.length; i++) expect(rec.txs[i]!.id).toBeGreaterThan(rec.txs[i - 1]!.id);
    expect(rec.blocks.map((b) => [b.id, b.height, b.hash])).toEqual(
      rec.blocks.map((_, i) => [i + 1, i + 1, sim.truth.block(i + 1).hash]),
    );

    // The live page also came back by itself: past the restart, its rows still the chain's run.
    await live.waitForFunction(
      (h) =>
        Number(document.querySelector('#height').textContent) > h &&
        document.querySelector('#state').textContent === 'live',
      target,
    );
    expectRowsAreTruth(sim, (await readLivePage(live)).rows);
  });
});
