import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/types.js';
import { useCliProcesses, type CliProcess } from '../helpers/cli-process.js';
import { createPostgresTestDb } from '../helpers/db.js';
import { createPgCluster, createStandby, freePort, type PgCluster } from '../helpers/pg-cluster.js';
import { databaseUrlRequirement, needs, pgServerRequirement } from '../helpers/requirements.js';
import { createStreamGroup, heightOf, lastHeight, type StreamRecorder } from '../helpers/stream-client.js';
import { hashOf, truthHashes } from '../helpers/stream-truth.js';
import { useSimulators } from '../sim/helpers/sims.js';

const LISTENER = 'rollup-indexer-listen';
/** The longest poll interval the API accepts: a poll feed wired next to LISTEN would not deliver in time. */
const NO_POLL = { API_STREAM_POLL_MS: '60000' };
/** The indexers prepare blocks on their main thread: what is tested is the API's streams. */
const MAIN_THREAD = { PREPARE_WORKERS: '0' };
const pgServer = await pgServerRequirement();

/** A condition re-checked every 50 ms; `stalled` names why to stop waiting (a chain-height bound). */
async function waitFor(ready: () => boolean, stalled: () => Promise<string | undefined>): Promise<void> {
  for (;;) {
    if (ready()) return;
    const reason = await stalled();
    if (reason !== undefined) throw new Error(reason);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One connection per database URL, for the test's own reads (checkpoint, pg_stat_activity). */
function useSql() {
  const pools = new Map<string, pg.Pool>();
  afterAll(() => Promise.all([...pools.values()].map((p) => p.end())));
  return async <Row>(url: string, text: string, params: unknown[] = []): Promise<Row[]> => {
    let pool = pools.get(url);
    if (!pool) {
      pool = new pg.Pool({ connectionString: url, max: 1 });
      // An idle connection to a cluster the test stops (or a killed backend) is not a test failure.
      pool.on('error', () => undefined);
      pools.set(url, pool);
    }
    return (await pool.query(text, params)).rows as Row[];
  };
}

/**
 * A block stream and an account's tx stream from height 1 must equal the simulator's truth up to
 * at least `target`, in order, each item once.
 */
function expectTruth(
  sim: Simulator,
  target: number,
  blocks: StreamRecorder,
  txs: StreamRecorder,
  account: string,
) {
  const heights = blocks.events.map((e) => e.id);
  expect(heights.slice(0, target)).toEqual([...Array(target).keys()].map((i) => i + 1));
  expect(heights).toEqual(heights.map((_, i) => i + 1));
  for (const e of blocks.events) {
    expect((JSON.parse(e.data) as { hash: string }).hash.toUpperCase()).toBe(sim.truth.block(e.id).hash);
  }
  const upto = Math.max(target, txs.events.length ? heightOf(txs.events.at(-1)!) : 0);
  const want = truthHashes(sim, upto, { account, fromHeight: 1 });
  expect(txs.events.length).toBeGreaterThanOrEqual(
    truthHashes(sim, target, { account, fromHeight: 1 }).length,
  );
  expect(txs.events.map(hashOf)).toEqual(want.slice(0, txs.events.length));
  for (let i = 1; i < txs.events.length; i++)
    expect(txs.events[i]!.id).toBeGreaterThan(txs.events[i - 1]!.id);
}

/** The signer of the first signed tx: an account the filtered stream has items for. */
function someSigner(sim: Simulator, upto: number): string {
  for (let h = 1; h <= upto; h++) {
    const tx = sim.truth.block(h).txs.find((t) => t.signer);
    if (tx) return tx.signer;
  }
  throw new Error(`no signed tx up to ${upto}`);
}

/**
 * `indexer` and `api` as separate processes on one PostgreSQL database: the API learns of commits
 * only from the writer's NOTIFY (its poll is set to the longest interval), so these tests fail if
 * the NOTIFY or the LISTEN connection is missing, or if the listener does not come back.
 */
/** A live Move chain (5 blocks/s, few accounts so each is busy), held by every test here. */
const LIVE_CHAIN = {
  vm: 'move',
  head: 10,
  live: true,
  blockTimeMs: 200,
  txsPerBlock: '0-8',
  accounts: 6,
  fastSignatures: true,
} as const;

/** Blocks committed past a height the stream still lacks before a wait gives up (40 s of the chain). */
const STALL_MARGIN = 200;

describe.runIf(needs(databaseUrlRequirement()))(
  'streams: indexer + api processes on PostgreSQL',
  { timeout: 120_000 },
  () => {
    const simulator = useSimulators();
    const cli = useCliProcesses();
    const sql = useSql();
    let sim: Simulator;
    let db: Awaited<ReturnType<typeof createPostgresTestDb>>;
    let indexer: CliProcess;
    let api: CliProcess;
    let port: number;
    const committed = async () =>
      Number(
        (await sql<{ height: string }>(db.url, "SELECT height FROM checkpoint WHERE stream = 'blocks'"))[0]
          ?.height ?? 0,
      );
    /**
     * Gives up once the indexer committed STALL_MARGIN blocks past `height` and the stream still
     * lacks it. The margin is the api's lag behind the writer that counts as stopped: at 25 blocks
     * (5 s of the chain) a loaded host failed a stream that was only slow (it was 5 blocks past
     * `height` a moment after the check).
     */
    const stalledBefore = (blocks: StreamRecorder, height: number) => async () =>
      lastHeight(blocks) < height && (await committed()) > height + STALL_MARGIN
        ? `the stream stopped at ${lastHeight(blocks)}; the indexer committed past ${height + STALL_MARGIN}`
        : undefined;
    const listeners = () =>
      sql<{ pid: number; query: string }>(
        db.url,
        'SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [LISTENER],
      );
    const startApi = async () => {
      api = cli(['api', '--port', String(port), '--host', '127.0.0.1'], { DATABASE_URL: db.url, ...NO_POLL });
      await api.waitForLine('"msg":"api listening"');
    };
    /** Waits until exactly one LISTEN connection other than `not` is open, and returns its pid. */
    const listenerUp = async (not?: number) => {
      let rows: { pid: number; query: string }[] = [];
      // Bounded by the simulator's head: the indexer may be stopped meanwhile.
      const giveUpAt = sim.head() + 50;
      await waitFor(
        () => rows.length === 1 && rows[0]!.pid !== not && /^LISTEN /.test(rows[0]!.query),
        async () => {
          rows = await listeners();
          if (api.child.exitCode !== null) return `api exited:\n${api.lastLines()}`;
          return sim.head() > giveUpAt ? `no LISTEN connection (other than ${not}) came up` : undefined;
        },
      );
      return rows[0]!.pid;
    };

    /** The blocks stream and one account's txs, both from height 1. */
    const followFromStart = (account: string) => {
      const group = createStreamGroup();
      const base = `http://127.0.0.1:${port}/indexer/stream/v1`;
      const blocks = group.record(`${base}/blocks?from_height=1`, 'block');
      const txs = group.record(`${base}/txs?account=${account}&from_height=1`, 'tx');
      return { group, blocks, txs };
    };
    /** Waits until both streams have everything up to `target`, closes them and compares with the truth. */
    const expectTruthUpTo = async (
      target: number,
      { group, blocks, txs }: ReturnType<typeof followFromStart>,
      account: string,
    ) => {
      await waitFor(
        () =>
          lastHeight(blocks) >= target &&
          txs.events.length >= truthHashes(sim, target, { account, fromHeight: 1 }).length,
        stalledBefore(blocks, target),
      );
      group.closeAll();
      expectTruth(sim, target, blocks, txs, account);
    };

    beforeAll(async () => {
      db = await createPostgresTestDb(process.env.TEST_DATABASE_URL!, { migrate: false });
      const started = await simulator(LIVE_CHAIN);
      sim = started.sim;
      indexer = cli(['indexer', '--port', '0', '--host', '127.0.0.1'], {
        DATABASE_URL: db.url,
        RPC_URL: started.urls.rpc,
        REST_URL: started.urls.rest,
        ...MAIN_THREAD,
      });
      await indexer.waitForHeight(10);
      port = await freePort();
      await startApi();
    });
    afterAll(async () => {
      for (const p of [api, indexer]) p?.kill('SIGKILL');
      await Promise.all([api?.exited, indexer?.exited]);
      await db?.dispose();
    });

    it('delivers through NOTIFY: blocks and an account equal the truth across an api restart', async () => {
      await listenerUp();
      const account = someSigner(sim, 10);
      const { group, blocks, txs } = followFromStart(account);
      const firstTarget = (await committed()) + 5;
      await waitFor(() => lastHeight(blocks) >= firstTarget, stalledBefore(blocks, firstTarget));

      // Restart (same port): the clients reconnect by themselves with Last-Event-ID.
      api.kill('SIGTERM');
      expect((await api.exited).code, api.lastLines()).toBe(0);
      await startApi();
      await listenerUp();
      const target = (await committed()) + 5;
      await expectTruthUpTo(target, { group, blocks, txs }, account);
    });

    it('keeps delivering, losing nothing, after its LISTEN connection is killed', async () => {
      const pid = await listenerUp();
      const from = await committed();
      const account = someSigner(sim, from);
      const { group, blocks, txs } = followFromStart(account);
      await waitFor(() => lastHeight(blocks) >= from + 2, stalledBefore(blocks, from + 2));

      const killed = await sql<{ ok: boolean }>(db.url, 'SELECT pg_terminate_backend($1) AS ok', [pid]);
      expect(killed).toEqual([{ ok: true }]);
      const killedAt = await committed();
      await listenerUp(pid);
      const target = killedAt + 8;
      await expectTruthUpTo(target, { group, blocks, txs }, account);
    });

    it('wakes once on reconnect: commits made while its LISTEN connection was down arrive', async () => {
      const pid = await listenerUp();
      const account = someSigner(sim, 10);
      const { group, blocks, txs } = followFromStart(account);
      const from = await committed();
      await waitFor(() => lastHeight(blocks) >= from, stalledBefore(blocks, from));

      // The api is frozen while its LISTEN connection is killed and the indexer commits 3 more
      // heights (their NOTIFYs reach no one); the indexer is frozen before the api resumes, so
      // no later NOTIFY exists: only the reconnect's own wake can deliver those heights.
      api.kill('SIGSTOP');
      try {
        await sql(db.url, 'SELECT pg_terminate_backend($1)', [pid]);
        let now = 0;
        await waitFor(
          () => now >= from + 3,
          async () => {
            now = await committed();
            return indexer.child.exitCode !== null ? `indexer exited:\n${indexer.lastLines()}` : undefined;
          },
        );
        indexer.kill('SIGSTOP');
      } finally {
        api.kill('SIGCONT');
      }
      try {
        const target = await committed();
        const giveUpAt = sim.head() + 50;
        await listenerUp(pid);
        await waitFor(
          () =>
            lastHeight(blocks) >= target &&
            txs.events.length >= truthHashes(sim, target, { account, fromHeight: 1 }).length,
          async () =>
            sim.head() > giveUpAt
              ? `the stream stopped at ${lastHeight(blocks)}; ${target} was committed while the listener was down`
              : undefined,
        );
        group.closeAll();
        expectTruth(sim, target, blocks, txs, account);
      } finally {
        indexer.kill('SIGCONT');
      }
    });
  },
);

/**
 * An `api` reading a streaming replica (DATABASE_READ_URL): NOTIFY does not reach a standby, so it
 * follows the replica's replayed checkpoint, and a client gets only what the replica has.
 */
describe.runIf(needs(pgServer))('streams: api on a streaming replica', { timeout: 120_000 }, () => {
  const simulator = useSimulators();
  const cli = useCliProcesses();
  const sql = useSql();
  let primary: PgCluster;
  let standby: PgCluster;
  beforeAll(async () => {
    primary = await createPgCluster();
    // The standby first: a base backup right after CREATE DATABASE waits for a spread checkpoint
    // (minutes); the database then reaches the standby through replication.
    standby = await createStandby(primary);
    await primary.sql('CREATE DATABASE ri_stream');
  });
  afterAll(async () => {
    await standby?.dispose();
    await primary?.dispose();
  });

  it('delivers what the replica has replayed, never more, and catches up after a replay pause', async () => {
    const heightOn = async (url: string) =>
      Number(
        (await sql<{ height: string }>(url, "SELECT height FROM checkpoint WHERE stream = 'blocks'"))[0]
          ?.height ?? 0,
      );
    const { sim, urls } = await simulator(LIVE_CHAIN);
    const indexer = cli(['indexer', '--port', '0', '--host', '127.0.0.1'], {
      DATABASE_URL: primary.url('ri_stream'),
      RPC_URL: urls.rpc,
      REST_URL: urls.rest,
      ...MAIN_THREAD,
    });
    await indexer.waitForHeight(10);
    const api = cli(['api', '--port', '0', '--host', '127.0.0.1'], {
      DATABASE_URL: primary.url('ri_stream'),
      DATABASE_READ_URL: standby.url('ri_stream'),
      API_STREAM_POLL_MS: '50',
    });
    const base = (JSON.parse(await api.waitForLine('"msg":"api listening"')) as { address: string }).address;
    const account = someSigner(sim, 10);
    const group = createStreamGroup();
    const blocks = group.record(`${base}/indexer/stream/v1/blocks?from_height=1`, 'block');
    const txs = group.record(`${base}/indexer/stream/v1/txs?account=${account}&from_height=1`, 'tx');
    const onPrimary = () => heightOn(primary.url('ri_stream'));
    const stalledBefore = (height: number) => async () =>
      lastHeight(blocks) < height && (await onPrimary()) > height + STALL_MARGIN
        ? `the stream stopped at ${lastHeight(blocks)}; the primary is past ${height + STALL_MARGIN}`
        : undefined;
    const first = (await onPrimary()) + 3;
    await waitFor(() => lastHeight(blocks) >= first, stalledBefore(first));

    // Replay paused: the primary moves on, the replica (and so every client) stays put.
    await standby.sql('SELECT pg_wal_replay_pause()');
    let paused = false;
    await waitFor(
      () => paused,
      async () => {
        const [row] = await standby.sql<{ s: string }>('SELECT pg_get_wal_replay_pause_state() AS s');
        paused = row!.s === 'paused';
        return undefined;
      },
    );
    const replicaAt = await heightOn(standby.url('ri_stream'));
    let primaryAt = 0;
    await waitFor(
      () => primaryAt >= replicaAt + 5,
      async () => {
        primaryAt = await onPrimary();
        return undefined;
      },
    );
    // ~1 s of blocks: the API polled the replica ~20 times meanwhile.
    expect(lastHeight(blocks)).toBeLessThanOrEqual(replicaAt);
    expect(txs.events.every((e) => heightOf(e) <= replicaAt)).toBe(true);

    await standby.sql('SELECT pg_wal_replay_resume()');
    const target = primaryAt + 3;
    await waitFor(
      () =>
        lastHeight(blocks) >= target &&
        txs.events.length >= truthHashes(sim, target, { account, fromHeight: 1 }).length,
      stalledBefore(target),
    );
    group.closeAll();
    expectTruth(sim, target, blocks, txs, account);
    api.kill('SIGKILL');
    indexer.kill('SIGKILL');
    await Promise.all([api.exited, indexer.exited]);
  });
});
