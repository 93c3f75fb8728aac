import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRepairContext } from '../../src/bin/commands/repair.js';
import { runReindex } from '../../src/ingest/repair/reindex.js';
import { runVerify, verifyHeights } from '../../src/ingest/repair/verify.js';
import type { VmType } from '../../src/sim/types.js';
import { testDbFactories, createPostgresTestDb } from '../helpers/db.js';
import { startTestDeployment, type DeploymentChainSpec, type TestDeployment } from '../helpers/deployment.js';
import { chainViews, until } from '../helpers/deployment-faults.js';

/**
 * The chains file read again while the deployment runs (docs/chains.md §6), on both stores (a new
 * chain's storage is a schema on PostgreSQL — here on a shard of its own — and a view of the one
 * embedded database on PGlite). A bad file changes nothing; a chain added gets storage, ingest and
 * its API, a chain removed leaves `/chains`, the account routes and an open account stream, while
 * the chain that stays is never restarted and commits meanwhile; a changed entry restarts that
 * chain alone; a chain added again resumes from the rows it kept. `reindex` and `verify --chain`
 * work on one chain's schema beside the running deployment (PostgreSQL: PGlite is one process's).
 */
const chain = (vm: VmType, chainId: string, head: number, seed: number, haltAt?: number) => ({
  vm,
  chainId,
  head,
  ...(haltAt === undefined ? {} : { haltAt }),
  txsPerBlock: '1-3',
  sim: { seed, accounts: 8, fastSignatures: true },
});
const STAYS: DeploymentChainSpec = chain('move', 'reload-move-1', 24, 31, 6);
const REMOVED: DeploymentChainSpec = chain('wasm', 'reload-wasm-1', 6, 32);
const ADDED: DeploymentChainSpec = chain('evm', 'reload-evm-1', 6, 33, 2);
const ACCOUNT = `0x${'11'.repeat(20)}`;

/** The chain's blocks counter in the deployment's scrape: blocks its one run has committed. */
async function blocksCounted(url: string, chainId: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`rollup_indexer_blocks_total{chain_id="${chainId}"}`));
  return Number(line?.split(' ').at(-1));
}

describe.each(testDbFactories())('the chains file read again while the deployment runs ($name)', (store) => {
  let deployment: TestDeployment;
  let added: DeploymentChainSpec = ADDED;
  let databaseUrl: string | undefined;
  const disposers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    if (store.name === 'postgres') {
      const base = await createPostgresTestDb(process.env.TEST_DATABASE_URL!, { migrate: false });
      const shard = await createPostgresTestDb(process.env.TEST_DATABASE_URL!, { migrate: false });
      disposers.push(
        () => base.dispose(),
        () => shard.dispose(),
      );
      databaseUrl = base.url;
      added = { ...ADDED, databaseUrl: shard.url };
    }
    deployment = await startTestDeployment({
      chains: [STAYS, REMOVED],
      ...(databaseUrl ? { databaseUrl } : {}),
    });
    await deployment.untilIndexed(() => 6);
  }, 120_000);
  afterAll(async () => {
    await deployment?.stop();
    for (const dispose of disposers) await dispose();
  });

  /** What does not differ by store runs on PGlite (the whole file without TEST_DATABASE_URL). */
  const onPglite = store.name === 'pglite';

  it.runIf(onPglite)(
    'refuses a bad file whole, naming the file, line and field, and changes nothing',
    async () => {
      const bad = JSON.stringify(
        { chains: [{ chain_id: 'x-1', vm: 'evm', rpc: 'http://a', rest: 'http://a' }] },
        null,
        1,
      );
      const outcome = await deployment.reload(bad);
      expect(outcome).toEqual({
        ok: false,
        error: expect.stringMatching(/chains\.json:\d+: chains\[0\]\.json_rpc: is required on an EVM chain/),
      });
      expect([...(await chainViews(deployment.url)).keys()]).toEqual([STAYS.chainId, REMOVED.chainId]);
    },
  );

  it('adds and removes chains while the chain that stays keeps committing, never restarted', async () => {
    const feed = new EventSource(`${deployment.url}/indexer/stream/v1/account/${ACCOUNT}`);
    const said: string[] = [];
    feed.addEventListener('chain', (e) => said.push(e.data));
    const opened = new Promise<void>((resolve) => feed.addEventListener('chains', () => resolve()));
    try {
      await opened;
      const removedCommits = deployment.commits(REMOVED.chainId);
      const outcome = await deployment.reload([STAYS, added]);
      expect(outcome).toEqual({
        ok: true,
        added: [ADDED.chainId],
        removed: [REMOVED.chainId],
        restarted: [],
      });
      expect([...(await chainViews(deployment.url)).keys()]).toEqual([STAYS.chainId, ADDED.chainId]);

      // The chain that stays goes on to its head while the added one waits on its node (halted at 2).
      const before = deployment.commits(STAYS.chainId);
      deployment.sims.get(STAYS.chainId)!.sim.halt(undefined);
      await deployment.untilIndexed((id) => (id === STAYS.chainId ? STAYS.head : 2));
      expect(deployment.commits(STAYS.chainId)).toBeGreaterThan(before);
      // One run from start to head: a restart would have begun a new counter.
      expect(await blocksCounted(deployment.url, STAYS.chainId)).toBe(STAYS.head);
      deployment.sims.get(ADDED.chainId)!.sim.halt(undefined);
      await deployment.untilIndexed();
      expect(
        (await fetch(`${deployment.url}/chains/${ADDED.chainId}/indexer/block/v1/blocks/6`)).status,
      ).toBe(200);

      // The removed chain: stopped, gone from every route and from the open stream.
      expect(deployment.commits(REMOVED.chainId)).toBe(removedCommits);
      const gone = await fetch(`${deployment.url}/chains/${REMOVED.chainId}/status`);
      expect([gone.status, ((await gone.json()) as { message: string }).message]).toEqual([
        404,
        expect.stringContaining(REMOVED.chainId),
      ]);
      const summary = await fetch(`${deployment.url}/indexer/account/v1/${ACCOUNT}/summary`);
      const body = (await summary.json()) as { chains: { chain_id: string }[] };
      expect(body.chains.map((c) => c.chain_id)).toEqual([STAYS.chainId, ADDED.chainId]);
      const refused = await fetch(
        `${deployment.url}/indexer/account/v1/${ACCOUNT}/txs?chain_ids=${REMOVED.chainId}`,
      );
      expect(refused.status).toBe(400);
      await until('the stream to follow the new set', async () =>
        said.some((d) => d.includes(`"chain_id":"${ADDED.chainId}","state":"live"`)),
      );
      expect(said).toContain(JSON.stringify({ chain_id: REMOVED.chainId, state: 'removed' }));
    } finally {
      feed.close();
    }
  }, 120_000);

  it.runIf(onPglite)(
    'restarts a chain whose entry changed, alone',
    async () => {
      const stays = await blocksCounted(deployment.url, STAYS.chainId);
      const outcome = await deployment.reload([STAYS, { ...added, entry: { stages: ['nft'] } }]);
      expect(outcome).toEqual({ ok: true, added: [], removed: [], restarted: [ADDED.chainId] });
      await until('the restarted chain to serve again', async () => {
        const res = await fetch(`${deployment.url}/chains/${ADDED.chainId}/indexer/block/v1/blocks/6`);
        return res.status === 200;
      });
      expect(await blocksCounted(deployment.url, STAYS.chainId)).toBe(stays);
      expect((await chainViews(deployment.url)).get(STAYS.chainId)!.state).toBe('ok');
    },
    60_000,
  );

  it.runIf(onPglite)(
    'resumes a chain added again from the rows it kept, fetching no block again',
    async () => {
      const commits = deployment.commits(REMOVED.chainId);
      const outcome = await deployment.reload([STAYS, added, REMOVED]);
      expect(outcome).toMatchObject({ ok: true, added: [REMOVED.chainId] });
      await until('the chain added again to serve', async () => {
        const res = await fetch(`${deployment.url}/chains/${REMOVED.chainId}/indexer/block/v1/blocks/6`);
        return res.status === 200;
      });
      expect((await chainViews(deployment.url)).get(REMOVED.chainId)!.indexed_height).toBe(REMOVED.head);
      expect(deployment.commits(REMOVED.chainId)).toBe(commits);
    },
    60_000,
  );

  it.runIf(onPglite)(
    'refuses verify and reindex on a chains file without --chain, naming the flag',
    async () => {
      const env = { CHAINS_FILE: deployment.chainsFile, DATA_DIR: '/nonexistent' };
      await expect(withRepairContext({}, async () => undefined, env)).rejects.toThrow(
        /name the one to work on with --chain <id>/,
      );
    },
  );

  it.runIf(store.name === 'postgres')(
    're-indexes and verifies one chain on its shard beside the running deployment',
    async () => {
      const env = { CHAINS_FILE: deployment.chainsFile, DATABASE_URL: databaseUrl! };
      const report = await withRepairContext(
        { chain: ADDED.chainId },
        (db, node) => runReindex(db, node, { from: 1, to: ADDED.head, batch: 2 }),
        env,
      );
      expect([report.finished, report.heights]).toEqual([true, ADDED.head]);
      const verified = await withRepairContext(
        { chain: ADDED.chainId },
        async (db, node, options) =>
          runVerify(db, node, { heights: await verifyHeights(db, {}), accountPrefix: options.accountPrefix }),
        env,
      );
      expect([verified.heights, verified.drifts]).toEqual([ADDED.head, []]);
      // The deployment serves the chain on: its rows are the re-indexed ones.
      expect((await chainViews(deployment.url)).get(ADDED.chainId)!.state).not.toBe('stalled');
    },
    60_000,
  );
});
