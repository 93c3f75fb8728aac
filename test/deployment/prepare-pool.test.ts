import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startStoreIndependentDeployment,
  type DeploymentChainSpec,
  type TestDeployment,
} from '../helpers/deployment.js';
import { chainViews, expectEveryChainMatchesTruth } from '../helpers/deployment-faults.js';

/**
 * The deployment's one prepare pool (docs/chains.md §7), two threads shared by two rollups: a live
 * Move chain at its head, and a Wasm chain held at its first block, then released far behind. While
 * the Wasm chain catches up (giving way to the Move chain, docs/chains.md §5), the Move chain's
 * commits keep coming; both chains are served by both threads, and every row equals its
 * simulator's truth. The fairness of the pool's queue itself is fair-queue.test.ts. The pool does
 * not depend on the store: PostgreSQL when it is in the run, else PGlite.
 */
const LIVE = 'pool-move-1';
const BEHIND = 'pool-wasm-1';
const BEHIND_HEAD = 60;
/** Most blocks a commit holds: the catch-up is six commits at least. */
const COMMIT_BLOCKS = 10;

describe('a deployment whose chains share one prepare pool', () => {
  let d: TestDeployment;
  beforeAll(async () => {
    const specs: DeploymentChainSpec[] = [
      {
        vm: 'move',
        chainId: LIVE,
        head: 3,
        txsPerBlock: '1-3',
        sim: { seed: 31, accounts: 6, live: true, blockTimeMs: 250, fastSignatures: true },
      },
      // Slow answers and one request at a time per thread make its catch-up span many of the
      // live chain's blocks; small commits make it many commits.
      {
        vm: 'wasm',
        chainId: BEHIND,
        head: BEHIND_HEAD,
        txsPerBlock: '1-3',
        sim: { seed: 32, accounts: 6, faults: 'latency=150', fastSignatures: true },
        haltAt: 1,
      },
    ];
    d = await startStoreIndependentDeployment({
      chains: specs,
      env: {
        PREPARE_WORKERS: '2',
        MAX_CONCURRENT_REQUESTS: '1',
        MAX_BLOCKS_PER_COMMIT: String(COMMIT_BLOCKS),
      },
    });
    await d.untilIndexed((id) => (id === BEHIND ? 1 : 4));
  }, 300_000);
  afterAll(async () => {
    await d?.stop();
  });

  it('keeps the chain at its head committing while the other catches up from far behind', async () => {
    const commits: Array<[string, number]> = [];
    const off = d.onCommit((chainId, height) => commits.push([chainId, height]));
    d.sims.get(BEHIND)!.sim.halt(undefined);
    await d.untilIndexed((id) => (id === BEHIND ? BEHIND_HEAD : 0));
    off();
    // The live chain stops here: the rest of the file checks what it made, not more of it.
    const live = d.sims.get(LIVE)!.sim;
    live.halt(live.head());
    const behind = commits.filter(([id]) => id === BEHIND).map(([, h]) => h);
    expect(behind.length).toBeGreaterThanOrEqual(Math.ceil((BEHIND_HEAD - 1) / COMMIT_BLOCKS));
    // The live chain's commits from the release to the catching-up chain's last commit. (Not from
    // its first commit: its window may prepare most of the backlog before it, then commit it in a
    // burst.)
    const last = commits.findIndex(([id, h]) => id === BEHIND && h === BEHIND_HEAD);
    const during = commits.slice(0, last).filter(([id]) => id === LIVE);
    expect(during.length, JSON.stringify(commits)).toBeGreaterThanOrEqual(2);
  }, 300_000);

  it('prepares both chains on the same threads', async () => {
    const threadsOf = async (chainId: string) => {
      const res = await fetch(`${d.url}/chains/${chainId}/status/endpoints`);
      const body = (await res.json()) as { prepare_workers: Array<{ worker: number; endpoints: unknown[] }> };
      expect(
        body.prepare_workers.map((w) => w.worker),
        chainId,
      ).toEqual([1, 2]);
      // A thread lists a chain's endpoints once it has prepared a chunk of that chain.
      return body.prepare_workers.filter((w) => w.endpoints.length > 0).map((w) => w.worker);
    };
    // Both threads serve both chains (above). Which of them prepared a chain's chunks is timing
    // (each chunk goes to the least busy thread, the first on a tie; the catch-up gives way to the
    // live chain, one chunk at a time, docs/chains.md §5), so each chain is asked to have used one.
    expect((await threadsOf(BEHIND)).length).toBeGreaterThan(0);
    expect((await threadsOf(LIVE)).length).toBeGreaterThan(0);
  });

  it('has stored both chains exactly as their simulators made them', async () => {
    const reached = new Map([...(await chainViews(d.url))].map(([id, c]) => [id, c.indexed_height] as const));
    await d.halt();
    await expectEveryChainMatchesTruth(d, reached);
  }, 300_000);
});
