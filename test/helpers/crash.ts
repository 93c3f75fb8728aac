import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPgliteDb } from '../../src/store/pglite.js';
import type { Db } from '../../src/store/db.js';
import { startCli } from './cli-process.js';
import { createPostgresTestDb } from './db.js';

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
  const { code, signal } = await p.exited;
  clearTimeout(timer);
  if (signal === 'SIGKILL' && run.kill?.signal === 'SIGKILL') return 'killed';
  if (code === 0) return 'done';
  throw new Error(`indexer exited with code ${code} signal ${signal}; last lines:\n${p.lastLines()}`);
}

export function seeded(seed: number) {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

export type CrashTarget = {
  name: string;
  open(): Promise<{ env: Record<string, string>; db(): Promise<Db>; dispose(): Promise<void> }>;
};

/** PGlite in a temp directory, and PostgreSQL when TEST_DATABASE_URL is set. */
export function crashTargets(): CrashTarget[] {
  const targets: CrashTarget[] = [
    {
      name: 'pglite',
      async open() {
        const dir = await mkdtemp(path.join(tmpdir(), 'ri-crash-'));
        return {
          env: { DATA_DIR: dir },
          db: () => createPgliteDb({ dataDir: dir }),
          dispose: () => rm(dir, { recursive: true, force: true }),
        };
      },
    },
  ];
  if (process.env.TEST_DATABASE_URL) {
    const base = process.env.TEST_DATABASE_URL;
    targets.push({
      name: 'postgres',
      async open() {
        const t = await createPostgresTestDb(base, { migrate: false });
        return { env: { DATABASE_URL: t.url }, db: async () => t.db, dispose: t.dispose };
      },
    });
  }
  return targets;
}
