import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import type { Simulator, SimulatorUrls } from '../../src/sim/types.js';
import { routeAnswers, type RouteAnswers } from '../api/route-answers.js';
import { useCliProcesses } from '../helpers/cli-process.js';
import { storeIndependentIndex, type ChildIndex } from '../helpers/db.js';
import { ingestFrom } from '../helpers/ingest.js';
import { useSimulators } from '../sim/helpers/sims.js';
import { editStoredTxs } from '../helpers/stored-tx.js';

/**
 * `verify` and `reindex` as an operator runs them (docs/operator.md "Checking and repairing the
 * index"), each a child process on one index: verify's exit codes (0 clean, 1 on a difference, 2 on
 * a bad flag or a range outside the index); a `reindex` — of a range, then of a stage — SIGKILLed
 * once it has said a batch committed, and run again: the rerun resumes after that batch, and the
 * index then answers every route class as it did before the drift was planted (the index of a fresh
 * run) — nothing lost, nothing twice. Every step waits for a line or an exit.
 *
 * One store: PostgreSQL when it is in the run (native: the children and this process read it for a
 * fraction of PGlite's CPU), else a PGlite data directory. The commands run the same SQL on either;
 * a killed PGlite directory's recovery is crash.test.ts's.
 */
const HEAD = 40;
const STORE = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

describe(`verify and reindex as child processes (move, ${STORE})`, { timeout: 300_000 }, () => {
  const start = useSimulators();
  const cli = useCliProcesses();
  let dir: string;
  let sim: Simulator;
  let urls: SimulatorUrls;
  let truth: RouteAnswers;
  let env: Record<string, string>;
  let index: ChildIndex;
  const withDb = <T>(fn: (db: Db) => Promise<T>) => index.withDb(fn);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-repair-'));
    ({ sim, urls } = await start({ vm: 'move', head: HEAD, fastSignatures: true }));
    index = await storeIndependentIndex(path.join(dir, 'data'));
    env = { ...index.env, RPC_URL: urls.rpc, REST_URL: urls.rest };
    truth = await withDb(async (db) => {
      await ingestFrom({
        db,
        vm: 'move',
        urls,
        untilHeight: HEAD,
        stages: { richList: true },
        requestTimeoutMs: 30_000,
      });
      return routeAnswers(db, sim, HEAD);
    });
  }, 180_000);

  afterAll(async () => {
    await index?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const run = async (args: string[]) => {
    const p = cli(args, env);
    const { code } = await p.exited;
    return { code, out: p.lastLines() };
  };

  it('verify exits 0 on a clean index, 1 naming each difference, 2 on a bad flag or range', async () => {
    const clean = await run(['verify', '--batch', '10', '--state', 'all']);
    expect(clean.code, clean.out).toBe(0);
    expect(clean.out).toMatch(
      new RegExp(
        `verify: ${HEAD} heights, \\d+ NFT owner\\(s\\) at ${HEAD}, \\d+ balance\\(s\\) at ${HEAD} in .*: no difference`,
      ),
    );
    const tx = await withDb(async (db) => {
      const { rows } = await db.query<{ sequence: string; height: number; hash: string }>(
        `SELECT sequence::text, height, upper(encode(hash, 'hex')) AS hash FROM tx ORDER BY sequence DESC LIMIT 1`,
      );
      await editStoredTxs(db, 'sequence = $1', [rows[0]!.sequence], (text) =>
        text.replaceAll('"gas_used":"', '"gas_used":"9'),
      );
      return rows[0]!;
    });
    const drift = await run(['verify', '--from', String(tx.height), '--to', String(tx.height)]);
    expect(drift.code, drift.out).toBe(1);
    expect(drift.out).toContain(`height ${tx.height} tx.data ${tx.hash.toLowerCase()}`);
    expect(drift.out).toContain(`GET /indexer/tx/v1/txs/${tx.hash}`);
    expect(drift.out).toContain('1 difference(s) at 1 height(s)');

    const badFlag = await run(['verify', '--sample', '0']);
    expect(badFlag.code, badFlag.out).toBe(2);
    expect(badFlag.out).toContain('--sample must be an integer ≥ 1, got "0"');
    const badState = await run(['verify', '--state', 'some']);
    expect(badState.code, badState.out).toBe(2);
    expect(badState.out).toContain(
      'error [invalid_option]: --state must be "all" or an integer ≥ 0, got "some"',
    );
    const badRange = await run(['verify', '--to', String(HEAD + 100)]);
    expect(badRange.code, badRange.out).toBe(2);
    expect(badRange.out).toContain(`above the indexed height ${HEAD}`);
    const badStage = await run(['reindex', '--stage', 'nfts']);
    expect(badStage.code, badStage.out).toBe(2);
    expect(badStage.out).toContain('--stage must be one of internal_tx, rich_list, got "nfts"');
  });

  it('a range reindex SIGKILLed after a batch resumes after it and repairs the index', async () => {
    const first = cli(['reindex', '--batch', '5'], env);
    await first.waitForLine(`reindexed through 10 of ${HEAD}`);
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const through = await withDb(async (db) => {
      const { rows } = await db.query<{ done: number }>(
        "SELECT done_through::int AS done FROM reindex_job WHERE job = 'range'",
      );
      return rows[0]!.done;
    });
    expect(through).toBeGreaterThanOrEqual(10);
    expect(through).toBeLessThan(HEAD);

    const rerun = await run(['reindex', '--batch', '5']);
    expect(rerun.code, rerun.out).toBe(0);
    // The rerun writes each height after the killed run's last commit once, and no other.
    expect(rerun.out).toContain(`reindex 1..${HEAD} done: ${HEAD - through} heights`);
    expect(rerun.out).toContain(`reindexed through ${through + 5} of ${HEAD}`);
    expect(rerun.out).not.toContain(`reindexed through ${through} of`);
    await withDb(async (db) => {
      expect((await db.query('SELECT job FROM reindex_job')).rows).toEqual([]);
      expect(await routeAnswers(db, sim, HEAD)).toEqual(truth);
    });
    expect((await run(['verify'])).code).toBe(0);
  });

  it('a stage reindex SIGKILLed after a batch resumes from its rebuild and swaps in the fresh rows', async () => {
    const denom = await withDb(async (db) => {
      const { rows } = await db.query<{ denom: string }>(
        'SELECT denom FROM rich_list WHERE amount > 0 ORDER BY denom LIMIT 1',
      );
      await db.query('UPDATE rich_list SET amount = amount * 2 WHERE denom = $1', [rows[0]!.denom]);
      return rows[0]!.denom;
    });
    const page = `/indexer/richlist/v1/${encodeURIComponent(denom)}?pagination.limit=1000`;
    expect(truth.has(page)).toBe(true);

    const first = cli(['reindex', '--stage', 'rich_list', '--batch', '5'], env);
    await first.waitForLine(`reindexed rich_list through 6 of ${HEAD}`);
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const through = await withDb(async (db) => {
      const job = await db.query<{ done: number }>(
        "SELECT done_through::int AS done FROM reindex_job WHERE job = 'stage:rich_list'",
      );
      // Untouched until the swap: the served rows still hold the drift.
      expect((await routeAnswers(db, sim, HEAD, [page])).get(page)).not.toBe(truth.get(page));
      return job.rows[0]!.done;
    });
    expect(through).toBeGreaterThanOrEqual(6);
    expect(through).toBeLessThan(HEAD);

    const rerun = await run(['reindex', '--stage', 'rich_list', '--batch', '5']);
    expect(rerun.code, rerun.out).toBe(0);
    expect(rerun.out).toMatch(
      new RegExp(`reindex --stage rich_list 1\\.\\.${HEAD} done, \\d+ rows swapped in`),
    );
    expect(rerun.out).toContain(`${HEAD - through} heights in`);
    await withDb(async (db) => {
      expect((await db.query('SELECT job FROM reindex_job')).rows).toEqual([]);
      expect(await routeAnswers(db, sim, HEAD)).toEqual(truth);
    });
  });
});
