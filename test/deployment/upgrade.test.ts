import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bin/context.js';
import type { Simulator, SimulatorOptions } from '../../src/sim/types.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import type { Db } from '../../src/store/driver/db.js';
import { writeMigratedPgliteDir } from '../helpers/db.js';
import { startTestDeployment, type TestDeployment } from '../helpers/deployment.js';
import { chainViews, expectEveryChainMatchesTruth, until } from '../helpers/deployment-faults.js';
import { ingestFrom, startSimulator } from '../helpers/ingest.js';
import { withSingleChainApi, type RawAnswer } from '../api/route-answers.js';

/**
 * An index made by the single-chain path (DATA_DIR, `ingestFrom` as `start` without a chains
 * file) joins a deployment as one chain beside a new one (docs/chains.md §3): it keeps `public`,
 * nothing below its checkpoint is asked of the node again (the node now serves only from the
 * checkpoint on, and counts every refused height), its answers for the old heights are unchanged,
 * and it goes on from checkpoint + 1. Storage-independent: PGlite only (docs/testing.md).
 */
const OLD = 'upgrade-move-1';
const NEW = 'upgrade-wasm-1';
/** Heights the single-chain release indexed. */
const INDEXED = 12;
const MOVE: Partial<SimulatorOptions> = { seed: 41, accounts: 8, blockTimeMs: 600, fastSignatures: true };

/** The answers for heights 1..head that new blocks cannot change: each block, its txs, each tx. */
async function heightAnswers(get: (url: string) => Promise<RawAnswer>, sim: Simulator, head: number) {
  const urls: string[] = [];
  for (let h = 1; h <= head; h++) {
    urls.push(`/indexer/block/v1/blocks/${h}`, `/indexer/tx/v1/txs/by_height/${h}`);
    for (const tx of sim.truth.block(h).txs) urls.push(`/indexer/tx/v1/txs/${tx.hash}`);
  }
  const answers = new Map<string, string>();
  for (const url of urls) {
    const res = await get(url);
    answers.set(url, `${res.status} ${res.contentType}\n${res.body}`);
  }
  return answers;
}

describe('a single-chain index joining a deployment', () => {
  let dir: string;
  let deployment: TestDeployment;
  let before: Map<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-upgrade-'));
    const dataDir = path.join(dir, 'data');
    const single = await startSimulator({
      vm: 'move',
      head: INDEXED,
      txsPerBlock: '2-4',
      sim: { ...MOVE, chainId: OLD },
    });
    let db: Db | undefined;
    try {
      // The run's migrated snapshot: what initdb and the migrations make of a new DATA_DIR.
      await writeMigratedPgliteDir(dataDir);
      db = await openDatabase({ kind: 'pglite', dataDir });
      await migrate(db);
      await ingestFrom({ db, vm: 'move', urls: single.urls, untilHeight: INDEXED });
      before = await heightAnswersOf(db, single.sim);
    } finally {
      await db?.close();
      await single.sim.close();
    }
    deployment = await startTestDeployment({
      dataDir,
      chains: [
        {
          vm: 'move',
          chainId: OLD,
          head: INDEXED,
          txsPerBlock: '2-4',
          // A node that holds nothing below the checkpoint: a request for an old height is refused and counted.
          sim: { ...MOVE, live: true, lowestHeight: INDEXED },
        },
        {
          vm: 'wasm',
          chainId: NEW,
          head: 3,
          txsPerBlock: '2-4',
          sim: { seed: 42, accounts: 8, live: true, blockTimeMs: 600, fastSignatures: true },
        },
      ],
    });
  }, 180_000);
  afterAll(async () => {
    await deployment?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('goes on from its checkpoint without asking the node for an old height, beside the new chain', async () => {
    const old = deployment.sims.get(OLD)!.sim;
    await until('both chains to commit past where the old index stopped', async () => {
      const chains = await chainViews(deployment.url);
      return chains.get(OLD)!.indexed_height >= INDEXED + 3 && chains.get(NEW)!.indexed_height >= 3;
    });
    expect(old.faultLog().unavailable).toBe(0);
    const after = await heightAnswers(
      async (url) => {
        const res = await fetch(`${deployment.url}/chains/${OLD}${url}`);
        return {
          status: res.status,
          contentType: String(res.headers.get('content-type')),
          body: await res.text(),
        };
      },
      old,
      INDEXED,
    );
    expect([...after.keys()]).toEqual([...before.keys()]);
    const differing = [...before.keys()].filter((url) => after.get(url) !== before.get(url));
    expect(differing).toEqual([]);
  }, 180_000);

  it('kept public for the old chain and gave the new one its own schema; both equal their truth', async () => {
    await deployment.halt();
    const db = await deployment.chainDb(NEW);
    try {
      const { rows } = await db.query<{ name: string }>(
        "SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE 'chain\\_%' ORDER BY 1",
      );
      expect(rows.map((r) => r.name)).toEqual(['chain_upgrade_wasm_1']);
    } finally {
      await db.close();
    }
    await expectEveryChainMatchesTruth(deployment, new Map([[OLD, INDEXED + 3]]));
  }, 180_000);
});

/** heightAnswers over a single-chain API app on `db` (as `start` without a chains file serves it). */
function heightAnswersOf(db: Db, sim: Simulator): Promise<Map<string, string>> {
  return withSingleChainApi(db, sim, (get) => heightAnswers(get, sim, INDEXED));
}
