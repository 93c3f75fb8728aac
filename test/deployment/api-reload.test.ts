import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliProcesses, type CliProcess } from '../helpers/cli-process.js';
import { startTestDeployment, type DeploymentChainSpec } from '../helpers/deployment.js';
import { chainViews, until } from '../helpers/deployment-faults.js';

/**
 * The `api` process (every chain's read API, no ingest) reads its chains file again on SIGHUP
 * (docs/chains.md §6.1), as a child process: a chain added serves its rows under `/chains/{id}`,
 * a chain removed answers 404 `chain_not_found`, a bad file is refused whole with the old set
 * kept, and the chain that stays answers every request throughout. `start`'s reload (ingest and
 * API together, a changed entry, a chain listed again) is reload.test.ts's; this one adds, refuses
 * and removes with two chains, so only two chains are indexed first. One store: the reload is the same code on either (the
 * chain's storage is opened by the same `ChainDatabases`), so PGlite, whose directory the
 * in-process `start` below fills and then lets go of for the child.
 */
const chain = (vm: DeploymentChainSpec['vm'], chainId: string, seed: number): DeploymentChainSpec => ({
  vm,
  chainId,
  head: 4,
  txsPerBlock: '1-3',
  sim: { seed, accounts: 6, fastSignatures: true },
});
const STAYS = chain('move', 'api-reload-move-1', 41);
/** Added by the first reload, removed by the last. */
const OTHER = chain('evm', 'api-reload-evm-1', 43);
const ALL = [STAYS, OTHER];
/** A route of every chain, read from `start` before the `api` child serves it. */
const route = (chainId: string) => `/chains/${chainId}/indexer/block/v1/blocks/3`;

/** What the child logs of one reload: `chains file reloaded` or `… not reloaded`, as JSON. */
type ReloadLine = { msg: string; added?: string[]; removed?: string[]; chains?: string[] };

describe('api with CHAINS_FILE reads the file again on SIGHUP', () => {
  const cli = useCliProcesses();
  let dir: string;
  let chainsFile: string;
  let entries: Map<string, unknown>;
  /** Each chain's answer to `route`, as `start` served it. */
  const served = new Map<string, string>();
  let api: CliProcess;
  let url: string;

  const writeChains = (ids: readonly string[]) =>
    writeFile(chainsFile, JSON.stringify({ chains: ids.map((id) => entries.get(id)) }, null, 1));
  /** The child's reload log lines (`chains file reloaded` or `… not reloaded`), as they come. */
  const reloadLines: ReloadLine[] = [];
  let onReloadLine: (() => void) | undefined;
  function watchReloads(p: CliProcess): void {
    let rest = '';
    const onText = (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts.filter((l) => /"chains file (not )?reloaded/.test(l))) {
        reloadLines.push(JSON.parse(line) as ReloadLine);
        onReloadLine?.();
      }
    };
    p.child.stdout!.on('data', onText);
    p.child.stderr!.on('data', onText);
  }
  /** Sends SIGHUP and resolves with the log line of that reload. */
  async function sighup(): Promise<ReloadLine> {
    const n = reloadLines.length + 1;
    const logged = new Promise<void>(
      (resolve) => (onReloadLine = () => reloadLines.length >= n && resolve()),
    );
    api.child.kill('SIGHUP');
    await Promise.race([
      logged,
      api.exited.then(() => {
        throw new Error(`api exited on SIGHUP:\n${api.lastLines()}`);
      }),
    ]);
    return reloadLines[n - 1]!;
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-api-reload-'));
    const dataDir = path.join(dir, 'data');
    const deployment = await startTestDeployment({ chains: ALL, dataDir });
    try {
      await deployment.untilIndexed();
      for (const spec of ALL) {
        const res = await fetch(`${deployment.url}${route(spec.chainId)}`);
        expect(res.status).toBe(200);
        served.set(spec.chainId, await res.text());
      }
      const file = JSON.parse(await readFile(deployment.chainsFile, 'utf8')) as {
        chains: { chain_id: string }[];
      };
      entries = new Map(file.chains.map((c) => [c.chain_id, c]));
    } finally {
      // PGlite: one process per directory, so `start` lets go of it before the child opens it.
      await deployment.stop();
    }
    chainsFile = path.join(dir, 'chains.json');
    await writeChains([STAYS.chainId]);
    api = cli(['api', '--port', '0', '--host', '127.0.0.1'], {
      CHAINS_FILE: chainsFile,
      DATA_DIR: dataDir,
      API_CACHE: 'false',
    });
    watchReloads(api);
    url = (JSON.parse(await api.waitForLine('"api listening"')) as { url: string }).url;
    await until('the chain to serve', async () => (await chainViews(url)).get(STAYS.chainId)?.state === 'ok');
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('follows chains added and removed, refuses a bad file whole, and the chain that stays answers throughout', async () => {
    // The chain that stays is asked without pause for the whole test: every answer its own.
    const answers: number[] = [];
    let asking = true;
    const asker = (async () => {
      while (asking) {
        const res = await fetch(`${url}${route(STAYS.chainId)}`);
        const body = await res.text();
        answers.push(res.status === 200 && body === served.get(STAYS.chainId) ? 200 : res.status || -1);
      }
    })();
    try {
      const before = answers.length;
      await writeChains([STAYS.chainId, OTHER.chainId]);
      expect(await sighup()).toMatchObject({
        msg: 'chains file reloaded',
        added: [OTHER.chainId],
        removed: [],
        chains: [STAYS.chainId, OTHER.chainId],
      });
      await until('the added chain to serve its rows', async () => {
        const res = await fetch(`${url}${route(OTHER.chainId)}`);
        return res.status === 200 && (await res.text()) === served.get(OTHER.chainId);
      });
      expect([...(await chainViews(url)).keys()]).toEqual([STAYS.chainId, OTHER.chainId]);

      // A bad file: refused whole, naming file, line and field; the set stays as it was.
      const bad = { chain_id: 'x-1', vm: 'evm', rpc: 'http://a', rest: 'http://a' };
      await writeFile(chainsFile, JSON.stringify({ chains: [entries.get(STAYS.chainId), bad] }, null, 1));
      expect((await sighup()).msg).toMatch(
        /^chains file not reloaded: .*chains\.json:\d+: chains\[1\]\.json_rpc: is required on an EVM chain/,
      );
      expect([...(await chainViews(url)).keys()]).toEqual([STAYS.chainId, OTHER.chainId]);
      expect(await (await fetch(`${url}${route(OTHER.chainId)}`)).text()).toBe(served.get(OTHER.chainId));

      await writeChains([STAYS.chainId]);
      expect(await sighup()).toMatchObject({
        msg: 'chains file reloaded',
        added: [],
        removed: [OTHER.chainId],
        chains: [STAYS.chainId],
      });
      expect([...(await chainViews(url)).keys()]).toEqual([STAYS.chainId]);
      const gone = await fetch(`${url}${route(OTHER.chainId)}`);
      expect([gone.status, ((await gone.json()) as { message: string }).message]).toEqual([
        404,
        expect.stringContaining(`unknown chain id "${OTHER.chainId}"`),
      ]);
      const accounts = await fetch(
        `${url}/indexer/account/v1/0x${'11'.repeat(20)}/txs?chain_ids=${OTHER.chainId}`,
      );
      expect(accounts.status).toBe(400);
      expect(answers.length).toBeGreaterThan(before);
    } finally {
      asking = false;
      await asker;
    }
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    expect(api.child.exitCode).toBeNull();
  }, 120_000);
});
