import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPgliteDb } from '../../src/store/pglite.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Db } from '../../src/store/db.js';
import { startCli } from '../helpers/cli-process.js';
import { createPostgresTestDb } from '../helpers/db.js';
import { expectIngestMatchesTruth, expectNftMatchesTruth } from '../helpers/truth.js';

const HEAD = 800;
const KILLS = 20;

interface IndexerRun {
  /** Signal to send once the process has said it is ingesting, and how long after that. */
  kill?: { afterReadyMs: number; signal: NodeJS.Signals };
}

/**
 * Runs `rollup-indexer indexer`; resolves 'killed' (SIGKILL) or 'done' (exit 0). A signal is only
 * sent after the process logged "ingest started": before that its handlers may not exist yet, and
 * start-up time on a loaded machine is anything but fixed.
 */
async function runIndexer(env: Record<string, string>, run: IndexerRun = {}): Promise<string> {
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

function seeded(seed: number) {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

type Target = {
  name: string;
  open(): Promise<{ env: Record<string, string>; db(): Promise<Db>; dispose(): Promise<void> }>;
};

const targets: Target[] = [
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

describe.each(targets)('crash safety on $name', (target) => {
  it(
    `survives ${KILLS} SIGKILLs while backfilling with no gap and no duplicate`,
    { timeout: 600_000 },
    async () => {
      const sim = createSimulator({
        vm: 'move',
        head: HEAD,
        txsPerBlock: '0-8',
        fastSignatures: true,
        rpcPort: 0,
        restPort: 0,
      });
      const urls = await sim.listen();
      const store = await target.open();
      const env = { ...store.env, RPC_URL: urls.rpc, REST_URL: urls.rest, VM_TYPE: 'move' };
      const random = seeded(42);
      try {
        const outcomes: string[] = [];
        for (let i = 0; i < KILLS; i++) {
          // From right at the start of ingest (resume, first fetches) to deep into a batch.
          const afterReadyMs = Math.floor(random() * 2000);
          outcomes.push(await runIndexer(env, { kill: { afterReadyMs, signal: 'SIGKILL' } }));
        }
        expect(outcomes.filter((o) => o === 'killed').length).toBe(KILLS);
        // A polite stop finishes the commit in flight and exits cleanly.
        expect(await runIndexer(env, { kill: { afterReadyMs: 300, signal: 'SIGTERM' } })).toBe('done');
        expect(await runIndexer({ ...env, UNTIL_HEIGHT: String(HEAD) })).toBe('done');
        const db = await store.db();
        try {
          await expectIngestMatchesTruth(db, sim, HEAD);
          await expectNftMatchesTruth(db, sim, HEAD);
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
