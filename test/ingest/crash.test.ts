import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../src/sim/simulator.js';
import type { VmType } from '../../src/sim/types.js';
import {
  crashTargets,
  followIndexer,
  seeded,
  type CrashStore,
  type MidBackfillRun,
} from '../helpers/crash.js';
import { heavySuiteVms } from '../helpers/db.js';
import {
  expectIngestMatchesTruth,
  expectNftMatchesTruth,
  expectNftTxEdgesMatchEvents,
} from '../helpers/truth.js';
import { expectRichListMatchesTruth } from '../helpers/truth-rich-list.js';

/**
 * Stops are armed evenly over the lower half of the chain, and few. Commits are capped at
 * COMMIT_CAP blocks (MAX_BLOCKS_PER_COMMIT, docs/ingest.md §4): what a stop can break is a commit,
 * so these chains hold more commits (8 on Move, 5 on Wasm and EVM) than the 1,000 and 600 blocks
 * they replaced did at the default 200 a commit (5 and 3), at a third of the length. A run's first
 * commit is full (the fetch window fills during start-up) and a polite stop finishes what is in
 * flight (a commit and the batch assembled behind it), so one stop can move the checkpoint ~2 caps
 * past its height, and the last one must still land below the head: 2.5 caps or more above it
 * here. Move takes the polite stop and a longer chain; Wasm and EVM two kills on a shorter one.
 */
const COMMIT_CAP = 40;
const PLAN: Record<VmType, { head: number; signals: NodeJS.Signals[] }> = {
  move: { head: 320, signals: ['SIGTERM', 'SIGKILL', 'SIGKILL'] },
  wasm: { head: 200, signals: ['SIGKILL', 'SIGKILL'] },
  evm: { head: 200, signals: ['SIGKILL', 'SIGKILL'] },
};

describe.each(crashTargets())('crash safety on $name', (target) => {
  it.each(heavySuiteVms(target.name))(
    '%s: SIGKILLs (and a SIGTERM) that each land mid-backfill leave no gap and no duplicate',
    { timeout: 600_000 },
    async (vm) => {
      const { head, signals } = PLAN[vm];
      const sim = createSimulator({
        vm,
        head,
        // Few txs a block: what a kill can break is a commit (a batch of blocks and its
        // checkpoint), however many txs it holds; every table still gets rows to compare.
        txsPerBlock: '0-3',
        fastSignatures: true,
        // Paced: every answer 10 ms late, and the indexer asks 4 at a time (below). On a fast
        // machine and PostgreSQL it otherwise outruns the test, which sees its commit lines late
        // (the simulator shares the test's event loop) and signals a finished indexer.
        faults: 'latency=10',
        rpcPort: 0,
        restPort: 0,
        jsonRpcPort: 0,
      });
      const urls = await sim.listen();
      const store = await target.open();
      // Every run stops at the head: a kill that never went out shows as 'done', not as a hang.
      const env: Record<string, string> = {
        ...store.env,
        RPC_URL: urls.rpc,
        REST_URL: urls.rest,
        VM_TYPE: vm,
        UNTIL_HEIGHT: String(head),
        MAX_CONCURRENT_REQUESTS: '4',
        MAX_BLOCKS_PER_COMMIT: String(COMMIT_CAP),
        // Move runs its rich-list stage through the stops (on PGlite when PostgreSQL is in the run,
        // the one killed PGlite directory the stages meet: crash-stages.test.ts is PostgreSQL's).
        // On Wasm and EVM the block stream alone: the stages' crash safety is crash-stages.test.ts's.
        ...(vm === 'move' ? {} : { RICH_LIST: 'false', INTERNAL_TX: 'false' }),
      };
      if (urls.jsonRpc) env.JSON_RPC_URL = urls.jsonRpc;
      try {
        await stopRepeatedly(env, store, head, signals, seeded(42));
        const db = await store.db();
        try {
          await expectIngestMatchesTruth(db, sim, head);
          await expectNftMatchesTruth(db, sim, head);
          expect(await expectNftTxEdgesMatchEvents(db, vm)).toBeGreaterThan(0);
          if (vm === 'move') expect(await expectRichListMatchesTruth(db, sim, head)).toBeGreaterThan(100);
        } finally {
          if (target.name === 'pglite') await db.close();
        }
      } finally {
        await store.dispose();
        await sim.close();
      }
    },
  );
});

/**
 * Stops the indexer once per signal, each armed at a higher height, a SIGKILL landing a random
 * share of a batch's time after that commit. Each stop is proven to have hit work in flight: the
 * checkpoint the next run resumed from is below the head (the indexer had not caught up), above
 * the previous stop's (the run was ingesting) and at or above the last commit the stopped run
 * logged (a logged commit is durable). Where the store can be read while no indexer runs
 * (PostgreSQL) the test reads the checkpoint itself, and the next run must start right after it;
 * PGlite's killed directory is read by the next run alone (a copy opened here cost ~1.3 s of CPU a
 * stop). A kill that found an idle indexer would prove nothing about crash safety.
 */
async function stopRepeatedly(
  env: Record<string, string>,
  store: CrashStore,
  head: number,
  signals: NodeJS.Signals[],
  random: () => number,
): Promise<void> {
  const step = Math.floor(head / 2 / signals.length);
  const stops: { at: string; signal: NodeJS.Signals; run: MidBackfillRun; read: number | undefined }[] = [];
  for (const [i, signal] of signals.entries()) {
    // A polite stop lets the commit in flight finish: signalled at once, it still lands mid-backfill.
    const delayShare = signal === 'SIGKILL' ? random() : 0;
    const run = await followIndexer(env, { height: (i + 1) * step, delayShare, signal });
    stops.push({ at: `${signal} ${i + 1}`, signal, run, read: await store.checkpoint?.() });
  }
  const last = await followIndexer(env);
  expect(stops[0]!.run.from, 'the first run starts at height 1').toBe(1);
  let previous = 0;
  for (const [i, { at, signal, run, read }] of stops.entries()) {
    const checkpoint = (stops[i + 1]?.run ?? last).from - 1;
    expect(run.outcome, at).toBe(signal === 'SIGKILL' ? 'killed' : 'done');
    expect(run.largestCommit, `${at}: commits hold at most the cap`).toBeLessThanOrEqual(COMMIT_CAP);
    if (read !== undefined) expect(checkpoint, `${at}: the next run resumed right after it`).toBe(read);
    expect(checkpoint, `${at}: a logged commit is durable`).toBeGreaterThanOrEqual(run.committedBeforeKill);
    expect(checkpoint, `${at}: landed before the indexer caught up`).toBeLessThan(head);
    expect(checkpoint, `${at}: the run was ingesting`).toBeGreaterThan(previous);
    previous = checkpoint;
  }
  // The last run resumes where the last stop left off and finishes the chain.
  expect(last.outcome).toBe('done');
  expect(last.largestCommit).toBeGreaterThan(0);
  expect(last.largestCommit).toBeLessThanOrEqual(COMMIT_CAP);
}
