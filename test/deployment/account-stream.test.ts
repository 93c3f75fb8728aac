import { EventSource } from 'eventsource';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBytesFromString } from '../../src/shared/address.js';
import type { Simulator, TxTruth, VmType } from '../../src/sim/types.js';
import { usePageOrigin } from '../helpers/browser.js';
import {
  startStoreIndependentDeployment,
  type DeploymentChainSpec,
  type TestDeployment,
} from '../helpers/deployment.js';
import { chromiumRequirement, needs } from '../helpers/requirements.js';

const browserBinary = await chromiumRequirement();

/**
 * The account stream across rollups (docs/chains.md §4.4): three live simulated rollups (Move,
 * Wasm, EVM; their own seeds, one keyring seed, so one user is active on all of them) in one
 * deployment. A subscriber reads one account's txs on every chain, the deployment is restarted,
 * the subscriber reconnects by itself with Last-Event-ID, and has every chain's txs of that
 * account exactly once, as the simulators' own truth lists them.
 */
const LIVE = { live: true, blockTimeMs: 400, fastSignatures: true, accounts: 3, keyringSeed: 7 };
const SPECS: readonly (DeploymentChainSpec & { vm: VmType })[] = [
  { vm: 'move', chainId: 'astream-move-1', head: 4, txsPerBlock: '1-3', sim: { seed: 21, ...LIVE } },
  { vm: 'wasm', chainId: 'astream-wasm-1', head: 4, txsPerBlock: '1-3', sim: { seed: 22, ...LIVE } },
  { vm: 'evm', chainId: 'astream-evm-1', head: 4, txsPerBlock: '1-3', sim: { seed: 23, ...LIVE } },
];

interface FeedItem {
  chainId: string;
  hash: string;
  height: number;
  id: string;
}

/** The account's txs on one chain up to `height`, in chain order, from the simulator's truth. */
function truthOf(sim: Simulator, account: string, height: number): TxTruth[] {
  const txs: TxTruth[] = [];
  for (let h = 1; h <= height; h++)
    txs.push(...sim.truth.block(h).txs.filter((t) => t.accounts.includes(account)));
  return txs;
}

/** The keyring account active on the most chains by `height` (every chain, with three accounts). */
function busyAccount(deployment: TestDeployment, height: number): string {
  const chainsOf = new Map<string, number>();
  for (const { sim } of deployment.sims.values()) {
    const seen = new Set<string>();
    for (let h = 1; h <= height; h++)
      for (const tx of sim.truth.block(h).txs) tx.accounts.forEach((a) => seen.add(a));
    for (const a of seen) chainsOf.set(a, (chainsOf.get(a) ?? 0) + 1);
  }
  const [account, chains] = [...chainsOf].sort((a, b) => b[1] - a[1])[0]!;
  expect(chains, 'an account active on two chains at least').toBeGreaterThanOrEqual(2);
  return account;
}

/** `chain:0` for every chain: a resume point before every chain's first tx. */
const fromStart = () => SPECS.map((s) => `${s.chainId}:0`).join(',');

/** A Node EventSource (it reconnects by itself with Last-Event-ID, as a browser does). */
function recordFeed(url: string) {
  const items: FeedItem[] = [];
  const states: string[] = [];
  const waiters = new Set<() => void>();
  let opens = 0;
  const source = new EventSource(url);
  const tick = () => {
    for (const w of [...waiters]) w();
  };
  source.addEventListener('tx', (e) => {
    const { chain_id, tx } = JSON.parse(e.data) as {
      chain_id: string;
      tx: { txhash: string; height: string };
    };
    items.push({ chainId: chain_id, hash: tx.txhash, height: Number(tx.height), id: e.lastEventId });
    tick();
  });
  for (const name of ['chains', 'chain']) source.addEventListener(name, (e) => states.push(e.data));
  // An EventSource that gets any answer but 200 closes for good (the server must never send one
  // to a reconnect, docs/stream.md §3): the wait fails at once, naming why, instead of timing out.
  let gaveUp: string | undefined;
  source.addEventListener('error', (e) => {
    if (source.readyState !== EventSource.CLOSED) return;
    gaveUp = (e as Event & { message?: string }).message ?? 'closed';
    tick();
  });
  source.addEventListener('open', () => {
    opens += 1;
    tick();
  });
  return {
    items,
    states,
    opens: () => opens,
    close: () => source.close(),
    /** Resolves once `ready()` holds, checked on every event. */
    until: (ready: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (gaveUp !== undefined) {
            waiters.delete(check);
            reject(new Error(`the EventSource gave up: ${gaveUp}`));
            return;
          }
          if (!ready()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}

describe('the account stream across rollups', { timeout: 240_000 }, () => {
  let deployment: TestDeployment;
  let account: string;
  beforeAll(async () => {
    deployment = await startStoreIndependentDeployment({
      chains: SPECS,
      env: { API_STREAM_RETRY_MS: '200' },
    });
    await deployment.untilIndexed();
    account = busyAccount(deployment, 4);
  }, 240_000);
  afterAll(async () => {
    await deployment?.stop();
  });

  const heights = async () => new Map((await deployment.chains()).map((c) => [c.chainId, c.height]));
  const covers = (items: readonly FeedItem[], upto: ReadonlyMap<string, number>) =>
    SPECS.every((s) => {
      const want = truthOf(deployment.sims.get(s.chainId)!.sim, account, upto.get(s.chainId)!).length;
      return items.filter((i) => i.chainId === s.chainId && i.height <= upto.get(s.chainId)!).length >= want;
    });
  /**
   * Per chain: what arrived is the truth's run of the account's txs, each once, in order, through
   * `upto` (the heights the feed was awaited to cover) and on. Past `upto` a block's txs may still
   * be arriving, so there the run may stop anywhere.
   */
  const expectTruth = (items: readonly FeedItem[], upto: ReadonlyMap<string, number>) => {
    for (const s of SPECS) {
      const got = items.filter((i) => i.chainId === s.chainId).map((i) => i.hash);
      const { sim } = deployment.sims.get(s.chainId)!;
      const last = Math.max(
        items.filter((i) => i.chainId === s.chainId).at(-1)?.height ?? 0,
        upto.get(s.chainId)!,
      );
      const want = truthOf(sim, account, last).map((t) => t.hash);
      expect(got, s.chainId).toEqual(want.slice(0, got.length));
      expect(got.length, s.chainId).toBeGreaterThanOrEqual(
        truthOf(sim, account, upto.get(s.chainId)!).length,
      );
    }
  };

  it('accepts the account in its three forms and refuses bad input naming it', async () => {
    const hex = Buffer.from(accountBytesFromString(account, 'init')).toString('hex');
    for (const form of [account, `0x${hex}`, `0x${'0'.repeat(24)}${hex}`]) {
      const res = await fetch(`${deployment.url}/indexer/stream/v1/account/${form}`, { method: 'HEAD' });
      expect(res.status, form).toBe(200);
    }
    const bad = async (path: string, init?: RequestInit) => {
      const res = await fetch(`${deployment.url}/indexer/stream/v1/account/${path}`, init);
      return { status: res.status, message: ((await res.json()) as { message: string }).message };
    };
    expect(await bad('init1nope')).toMatchObject({
      status: 400,
      message: expect.stringContaining('address'),
    });
    expect(await bad(`${account}?chain_ids=nope-1`)).toMatchObject({
      status: 404,
      message: expect.stringContaining('chain_ids: unknown chain id "nope-1"'),
    });
    expect(await bad(`${account}?chain_ids=,`)).toMatchObject({
      status: 400,
      message: expect.stringContaining('chain_ids'),
    });
    expect(await bad(`${account}?last_event_id=x`)).toMatchObject({
      status: 400,
      message: expect.stringContaining('last_event_id'),
    });
  });

  it('chain_ids keeps to the chains it names', async () => {
    const only = SPECS[1]!.chainId;
    const feed = recordFeed(
      `${deployment.url}/indexer/stream/v1/account/${account}?chain_ids=${only}&last_event_id=${encodeURIComponent(fromStart())}`,
    );
    try {
      const upto = await heights();
      const want = truthOf(deployment.sims.get(only)!.sim, account, upto.get(only)!).length;
      await feed.until(() => feed.items.filter((i) => i.height <= upto.get(only)!).length >= want);
      expect(new Set(feed.items.map((i) => i.chainId))).toEqual(new Set([only]));
      // Its state may be `unavailable` on a loaded host (attached after 2 s): only the ids matter.
      const first = JSON.parse(feed.states[0]!) as { chains: Array<{ chain_id: string }> };
      expect(first.chains.map((c) => c.chain_id)).toEqual([only]);
    } finally {
      feed.close();
    }
  });

  // The shutdown closes the stream; the EventSource's reconnect may reach the process while it
  // still closes (on a kept-alive connection or before the port stops listening), where it must be
  // dropped, not answered 503: test/api/edge.test.ts holds that case exactly.
  it('resumes every chain after a deployment restart with nothing lost or repeated', async () => {
    const feed = recordFeed(
      `${deployment.url}/indexer/stream/v1/account/${account}?last_event_id=${encodeURIComponent(fromStart())}`,
    );
    try {
      const before = await heights();
      await feed.until(() => covers(feed.items, before));
      const readBefore = feed.items.length;

      await deployment.restart();
      await deployment.untilIndexed((chainId) => before.get(chainId)! + 6);
      const after = await heights();
      await feed.until(() => covers(feed.items, after) && feed.opens() >= 2);

      expect(feed.items.length).toBeGreaterThan(readBefore);
      expect(new Set(feed.items.map((i) => i.chainId)).size).toBeGreaterThanOrEqual(2);
      expectTruth(feed.items, after);
      // The last id names every chain, each at the sequence of the last tx it sent from it.
      const lastId = feed.items.at(-1)!.id;
      expect(
        lastId
          .split(',')
          .map((p) => decodeURIComponent(p.split(':')[0]!))
          .sort(),
      ).toEqual(SPECS.map((s) => s.chainId).sort());
    } finally {
      feed.close();
    }
  });

  it("goes on for the other chains while one chain's node is down, and says so", async () => {
    const down = SPECS[0]!.chainId;
    const feed = recordFeed(
      `${deployment.url}/indexer/stream/v1/account/${account}?last_event_id=${encodeURIComponent(fromStart())}`,
    );
    const { sim } = deployment.sims.get(down)!;
    try {
      await feed.until(() => feed.states.length > 0);
      sim.outage('reset');
      const stalled = () =>
        feed.states.some((d) => {
          const e = JSON.parse(d) as { chain_id?: string; state?: string };
          return e.chain_id === down && e.state === 'stalled';
        });
      await feed.until(stalled);
      // The others keep coming: every other chain indexes six more blocks and the feed has them.
      const at = await heights();
      await deployment.untilIndexed((chainId) => (chainId === down ? 0 : at.get(chainId)! + 6));
      const others = new Map([...(await heights())].map(([c, h]) => [c, c === down ? 0 : h]));
      await feed.until(() => covers(feed.items, others));
      sim.outage(undefined);
      await feed.until(() => feed.states.some((d) => d.includes(`"chain_id":"${down}","state":"live"`)));
      const back = await heights();
      await deployment.untilIndexed((chainId) => back.get(chainId)! + 3);
      const after = await heights();
      await feed.until(() => covers(feed.items, after));
      expectTruth(feed.items, after);
    } finally {
      sim.outage(undefined);
      feed.close();
    }
  });

  const pageOrigin = usePageOrigin(`<!doctype html><title>wallet</title><ul id="feed"></ul><script>
    const params = new URLSearchParams(location.search);
    const source = new EventSource(params.get('api') + '/indexer/stream/v1/account/' + params.get('account')
      + '?last_event_id=' + encodeURIComponent(params.get('from')));
    source.addEventListener('tx', (e) => {
      const { chain_id, tx } = JSON.parse(e.data);
      const li = document.createElement('li');
      li.textContent = chain_id + ' ' + tx.height + ' ' + tx.txhash;
      document.getElementById('feed').appendChild(li);
    });
  </script>`);

  it.runIf(needs(browserBinary))('a page on another origin shows the feed across chains', async () => {
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({ executablePath: browserBinary.path!, args: ['--no-sandbox'] });
      const page = await browser.newPage();
      const upto = await heights();
      const want = SPECS.flatMap((s) =>
        truthOf(deployment.sims.get(s.chainId)!.sim, account, upto.get(s.chainId)!).map(
          (t) => `${s.chainId} ${t.height} ${t.hash}`,
        ),
      );
      const query = new URLSearchParams({ api: deployment.url, account, from: fromStart() });
      await page.goto(`${await pageOrigin()}/?${query}`);
      // Every truth row of the heights indexed when the page opened is shown (later rows may follow).
      await page.waitForFunction((rows) => {
        const shown = new Set(
          Array.from(
            (
              globalThis as unknown as {
                document: { querySelectorAll(s: string): ArrayLike<{ textContent: string }> };
              }
            ).document.querySelectorAll('#feed li'),
            (li) => li.textContent,
          ),
        );
        return rows.every((r) => shown.has(r));
      }, want);
      const shown = await page.evaluate(() =>
        Array.from(
          (
            globalThis as unknown as {
              document: { querySelectorAll(s: string): ArrayLike<{ textContent: string }> };
            }
          ).document.querySelectorAll('#feed li'),
          (li) => li.textContent,
        ),
      );
      for (const s of SPECS) {
        const rows = shown.filter((r) => r.startsWith(`${s.chainId} `));
        const last = Number(rows.at(-1)!.split(' ')[1]);
        const truth = truthOf(deployment.sims.get(s.chainId)!.sim, account, last);
        expect(rows, s.chainId).toEqual(truth.map((t) => `${s.chainId} ${t.height} ${t.hash}`));
      }
      expect(new Set(shown.map((r) => r.split(' ')[0])).size).toBe(SPECS.length);
    } finally {
      await browser?.close();
    }
  });
});
