/**
 * A migration added on top of a scale database, run while the API is under load: how long each
 * statement takes, the lock it takes, whether any API backend waited on a lock meanwhile (sampled
 * from pg_stat_activity every 50 ms), and the load's p99 during the statement vs just before.
 * Everything it adds is removed again, so the database stays the bench's.
 */
import pg from 'pg';
import { loadClient, type LoadResult } from '../lib/load-client.js';

export interface MigrationStep {
  name: string;
  /** What PostgreSQL locks, and who that blocks (documented, then checked by the sampling). */
  lock: string;
  run(conn: pg.Client): Promise<unknown>;
  /** Removes what a probe added, so the database stays the bench's. */
  undo?(conn: pg.Client): Promise<unknown>;
}

/** Generic statements an operator might add on top of a big database. */
export const PROBE_STEPS: MigrationStep[] = [
  {
    name: 'create_index_concurrently_tx_accounts',
    lock: 'SHARE UPDATE EXCLUSIVE on tx_accounts: reads and ingest writes go on; waits for older transactions',
    run: (c) => c.query('CREATE INDEX CONCURRENTLY scale_probe_idx ON tx_accounts (sequence, account_id)'),
    undo: (c) => c.query('DROP INDEX CONCURRENTLY IF EXISTS scale_probe_idx'),
  },
  {
    name: 'add_nullable_column_tx',
    lock: 'ACCESS EXCLUSIVE on tx for a catalog update only (no default, no rewrite); lock_timeout 2 s',
    // lock_timeout so it never queues long in front of readers.
    run: (c) => c.query("SET lock_timeout = '2s'; ALTER TABLE tx ADD COLUMN scale_probe smallint"),
    undo: (c) => c.query("SET lock_timeout = '2s'; ALTER TABLE tx DROP COLUMN IF EXISTS scale_probe"),
  },
];

/**
 * Rebuilds the account x message-type index compactly (its pages fill to ~50 % as ingest inserts
 * mid-index; see docs/ingest.md). Not undone: the database keeps the compact index.
 */
export const REINDEX_STEP: MigrationStep = {
  name: 'reindex_concurrently_tx_account_msg_types_pkey',
  lock: 'SHARE UPDATE EXCLUSIVE on tx_account_msg_types: reads and ingest writes go on',
  run: (c) => c.query('REINDEX INDEX CONCURRENTLY tx_account_msg_types_pkey'),
};

export interface MigrationResult {
  step: string;
  lock: string;
  seconds: number;
  /** 50 ms samples in which some backend of this database waited on a lock, and the most at once. */
  lockWaitSamples: number;
  samples: number;
  maxBackendsWaiting: number;
  /** The statements that waited (first 60 characters), so API reads can be told from the rest. */
  waiting: string[];
  loadBefore: Pick<LoadResult, 'reqPerSec' | 'p50Ms' | 'p99Ms' | 'maxMs'>;
  /** The load rounds that ran while the statement did (the worst round's p99 and max). */
  loadDuring: { rounds: number; reqPerSec: number; worstP99Ms: number; maxMs: number; errors: number };
}

const ROUND_SECONDS = 3;

export async function migrationUnderLoad(o: {
  url: string;
  base: string;
  path: () => string;
  connections: number;
  steps: MigrationStep[];
  log: (message: string) => void;
}): Promise<MigrationResult[]> {
  const client = loadClient();
  const load = (seconds: number) =>
    client.run({ base: o.base, path: o.path, connections: o.connections, seconds, headers: {} });
  const results: MigrationResult[] = [];
  for (const step of o.steps) {
    o.log(`migration under load: ${step.name} ...`);
    const before = await load(5);
    const conn = new pg.Client({ connectionString: o.url });
    await conn.connect();
    try {
      const sampler = sampleLockWaits(o.url);
      const started = performance.now();
      let done = false;
      const statement = step.run(conn).finally(() => (done = true));
      const rounds: LoadResult[] = [];
      // At least one round overlaps the statement; more while it still runs.
      do rounds.push(await load(ROUND_SECONDS));
      while (!done);
      await statement;
      const seconds = (performance.now() - started) / 1000;
      const samples = await sampler.stop();
      results.push({
        step: step.name,
        lock: step.lock,
        seconds: Math.round(seconds * 100) / 100,
        ...samples,
        loadBefore: pickLoad(before),
        loadDuring: {
          rounds: rounds.length,
          reqPerSec: Math.round(rounds.reduce((s, r) => s + r.reqPerSec, 0) / rounds.length),
          worstP99Ms: Math.max(...rounds.map((r) => r.p99Ms)),
          maxMs: Math.max(...rounds.map((r) => r.maxMs)),
          errors: rounds.reduce((s, r) => s + r.errors + r.non2xx, 0),
        },
      });
    } finally {
      await step.undo?.(conn).catch((err: Error) => o.log(`undo of ${step.name} failed: ${err.message}`));
      await conn.end();
    }
  }
  return results;
}

function pickLoad(r: LoadResult) {
  return { reqPerSec: Math.round(r.reqPerSec), p50Ms: r.p50Ms, p99Ms: r.p99Ms, maxMs: r.maxMs };
}

/** Polls pg_stat_activity for backends of this database waiting on a lock. */
function sampleLockWaits(url: string) {
  const conn = new pg.Client({ connectionString: url });
  let running = true;
  let samples = 0;
  let lockWaitSamples = 0;
  let maxBackendsWaiting = 0;
  const waiting = new Set<string>();
  const loop = (async () => {
    await conn.connect();
    while (running) {
      const { rows } = await conn.query<{ q: string }>(
        `SELECT left(query, 60) AS q FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
      );
      samples++;
      if (rows.length > 0) lockWaitSamples++;
      maxBackendsWaiting = Math.max(maxBackendsWaiting, rows.length);
      for (const r of rows) waiting.add(r.q);
      await new Promise((r) => setTimeout(r, 50));
    }
    await conn.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { lockWaitSamples, samples, maxBackendsWaiting, waiting: [...waiting] };
    },
  };
}
