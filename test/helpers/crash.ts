import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPgliteDb } from '../../src/store/driver/pglite.js';
import type { Db } from '../../src/store/driver/db.js';
import { startCli, type CliProcess } from './cli-process.js';
import { createPostgresTestDb, writeMigratedPgliteDir } from './db.js';

interface IndexerRun {
  /** Signal to send once the process has said it is ingesting, and how long after that. */
  kill?: { afterReadyMs: number; signal: NodeJS.Signals };
}

/**
 * Runs `rollup-indexer indexer`; resolves 'killed' (SIGKILL) or 'done' (exit 0). A signal is only
 * sent after the process logged "ingest started": before that its handlers may not exist yet, and
 * start-up time on a loaded machine is anything but fixed.
 */
export async function runIndexer(env: Record<string, string>, run: IndexerRun = {}): Promise<string> {
  const p = startCli(['indexer', '--port', '0'], env);
  let timer: NodeJS.Timeout | undefined;
  if (run.kill) {
    const { afterReadyMs, signal } = run.kill;
    p.waitForLine('"msg":"ingest started"').then(
      () => (timer = setTimeout(() => p.kill(signal), afterReadyMs)),
      () => undefined,
    );
  }
  return outcome(p, run.kill?.signal, () => clearTimeout(timer));
}

export interface MidBackfillRun {
  outcome: string;
  /** The height this run resumed from ("ingest started"). */
  from: number;
  /** The commit whose log line armed the signal (-1 when none did). */
  committedBeforeKill: number;
  /** The most blocks one of the run's logged commits held (0 when none was logged). */
  largestCommit: number;
}

/**
 * Runs the indexer, following its log; with `kill`, signals it once it has committed a batch
 * reaching `height`: at once if that was the run's first commit (its time includes start-up),
 * else after a share (`delayShare`, 0..1) of the time since the commit before. So the signal
 * lands anywhere from the next transaction's start to the following commit, however fast this
 * machine ingests. Commits are logged at debug level.
 */
export async function followIndexer(
  env: Record<string, string>,
  kill?: { height: number; delayShare: number; signal: NodeJS.Signals },
): Promise<MidBackfillRun> {
  const p = startCli(['indexer', '--port', '0'], { ...env, LOG_LEVEL: 'debug' });
  const run = { from: -1, committedBeforeKill: -1, largestCommit: 0 };
  let last: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  onJsonLines(p, (line) => {
    if (line.msg === 'ingest started') run.from = Number(line.from);
    if (line.msg === 'committed blocks') {
      run.largestCommit = Math.max(run.largestCommit, Number(line.to) - Number(line.from) + 1);
    }
    if (!kill || line.msg !== 'committed blocks' || timer !== undefined) return;
    const now = Date.now();
    const between = last === undefined ? 0 : now - last;
    last = now;
    if (Number(line.to) < kill.height) return;
    run.committedBeforeKill = Number(line.to);
    timer = setTimeout(() => p.kill(kill.signal), Math.floor(kill.delayShare * between));
  });
  return { outcome: await outcome(p, kill?.signal, () => clearTimeout(timer)), ...run };
}

async function outcome(p: CliProcess, sent: NodeJS.Signals | undefined, cleanup: () => void) {
  const { code, signal } = await p.exited;
  cleanup();
  if (signal === 'SIGKILL' && sent === 'SIGKILL') return 'killed';
  if (code === 0) return 'done';
  throw new Error(`indexer exited with code ${code} signal ${signal}; last lines:\n${p.lastLines()}`);
}

/** Calls `each` with every JSON log line the process writes on stdout. */
function onJsonLines(p: CliProcess, each: (line: Record<string, unknown>) => void): void {
  let rest = '';
  p.child.stdout!.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const text of parts) {
      if (!text.startsWith('{')) continue;
      try {
        each(JSON.parse(text) as Record<string, unknown>);
      } catch {
        // Not a log record (a line the CLI printed itself): nothing to follow.
      }
    }
  });
}

export function seeded(seed: number) {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

const CHECKPOINT_SQL = "SELECT height FROM checkpoint WHERE stream = 'blocks'";

export interface CrashStore {
  env: Record<string, string>;
  db(): Promise<Db>;
  /**
   * The committed block checkpoint, read while no indexer runs, leaving the store as it was; absent
   * on PGlite, whose killed directory only a copy could be read from (recovered: ~1.3 s of CPU).
   */
  checkpoint?(): Promise<number>;
  dispose(): Promise<void>;
}

export type CrashTarget = { name: string; open(): Promise<CrashStore> };

/** PGlite in a temp directory, and PostgreSQL when TEST_DATABASE_URL is set. */
export function crashTargets(): CrashTarget[] {
  const targets: CrashTarget[] = [{ name: 'pglite', open: openPglite }];
  if (process.env.TEST_DATABASE_URL) {
    const base = process.env.TEST_DATABASE_URL;
    targets.push({
      name: 'postgres',
      async open() {
        const t = await createPostgresTestDb(base, { migrate: false });
        return {
          env: { DATABASE_URL: t.url },
          db: async () => t.db,
          checkpoint: () => checkpointOf(t.db),
          dispose: t.dispose,
        };
      },
    });
  }
  return targets;
}

async function openPglite(): Promise<CrashStore> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ri-crash-'));
  // The run's migrated snapshot, so the first indexer does not run initdb (~4 s of CPU) and the
  // migrations: what the test kills is ingest.
  await writeMigratedPgliteDir(dir);
  return {
    env: { DATA_DIR: dir },
    db: () => createPgliteDb({ dataDir: dir }),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

async function checkpointOf(db: Db): Promise<number> {
  const { rows } = await db.query<{ height: number }>(CHECKPOINT_SQL);
  return Number(rows[0]?.height ?? 0);
}
