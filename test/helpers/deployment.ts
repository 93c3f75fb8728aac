import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createChainDatabases } from '../../src/bin/chain-databases.js';
import type { ChainCondition } from '../../src/shared/chain-condition.js';
import type { DatabaseTarget } from '../../src/shared/config.js';
import type { Db } from '../../src/store/driver/db.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import { loadDeploymentConfig } from '../../src/bin/deployment-config.js';
import { runDeploymentProcess } from '../../src/bin/deployment-process.js';
import type { ReloadOutcome } from '../../src/bin/chain-set.js';
import type { Simulator, SimulatorOptions, SimulatorUrls, VmType } from '../../src/sim/types.js';
import { createPostgresTestDb, writeFreshPgliteDir } from './db.js';
import { startSimulator } from './ingest.js';
import { getTextOnNewConnection } from './http-get.js';

/** One simulated rollup of a test deployment. */
export interface DeploymentChainSpec {
  vm: VmType;
  head: number;
  chainId: string;
  txsPerBlock?: string;
  sim?: Partial<SimulatorOptions>;
  /** The chain's own PostgreSQL database (a shard); else the deployment's database. */
  databaseUrl?: string;
  /** More keys of the chain's entry in the chains file (e.g. `stages`). */
  entry?: Record<string, unknown>;
  /** The chain halted at this height before the deployment starts (`sim.halt`). */
  haltAt?: number;
}

export interface TestDeployment {
  url: string;
  /** The chains file the deployment reads (CHAINS_FILE). */
  chainsFile: string;
  sims: ReadonlyMap<string, { sim: Simulator; urls: SimulatorUrls }>;
  /** Calls `listener` with each commit of any chain, from now until the returned function is called. */
  onCommit(listener: (chainId: string, height: number) => void): () => void;
  /** Resolves once every chain committed at least `height(chainId)` (its head by default). */
  untilIndexed(height?: (chainId: string) => number): Promise<void>;
  chains(): Promise<ChainCondition[]>;
  /** Stops the deployment (ingest and API), keeping the simulators and every chain's rows. */
  halt(): Promise<void>;
  /** Stops the deployment (not the simulators) and starts it again on the same port and databases. */
  restart(): Promise<void>;
  /** A chain's own rows (its schema, on its database), opened as the deployment opens them; after halt(). */
  chainDb(chainId: string): Promise<Db>;
  /**
   * Writes a new chains file — these chains (a simulator started for each new id), or this text as
   * it is — and reads it again as SIGHUP does (docs/chains.md §6); resolves with what changed.
   */
  reload(chains: readonly DeploymentChainSpec[] | string): Promise<ReloadOutcome>;
  /** Commits of the chain since the deployment first started (every run of it). */
  commits(chainId: string): number;
  /** Stops the deployment, then the simulators; resolves when everything is closed. */
  stop(): Promise<void>;
}

/**
 * Simulators on free ports, a chains file naming them, and `start` with that file run in this
 * process on `database` (a PostgreSQL URL, else PGlite in a temporary directory, unpacked from the
 * run's fresh snapshot unless `dataDir` exists), on a free port.
 * Chains prepare their blocks on the main thread unless `env` sets PREPARE_WORKERS (the shared
 * pool's threads cost each start their start-up; prepare-pool.test.ts runs with them).
 */
export async function startTestDeployment(args: {
  chains: readonly DeploymentChainSpec[];
  databaseUrl?: string;
  /** The embedded database's directory when there is no `databaseUrl` (default: a new one). */
  dataDir?: string;
  env?: Record<string, string>;
  logger?: Logger;
}): Promise<TestDeployment> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ri-deploy-'));
  const dataDir = args.dataDir ?? path.join(dir, 'data');
  const sims = new Map<string, { sim: Simulator; urls: SimulatorUrls }>();
  let controller = new AbortController();
  let done: Promise<void> | undefined;
  /** Every chain named so far, by id (the current file's and those a reload left out). */
  const specs = new Map<string, DeploymentChainSpec>();
  const commits = new Map<string, number>();
  let reloadNow: (() => Promise<ReloadOutcome>) | undefined;
  try {
    // A new embedded database is the run's initdb snapshot, as initdb would leave it (~2.5 s of CPU less).
    if (!args.databaseUrl && !(await exists(dataDir))) await writeFreshPgliteDir(dataDir);
    const file = path.join(dir, 'chains.json');
    const writeChains = async (chains: readonly DeploymentChainSpec[]) => {
      for (const spec of chains) {
        specs.set(spec.chainId, spec);
        if (sims.has(spec.chainId)) continue;
        const started = await startSimulator({
          vm: spec.vm,
          head: spec.head,
          ...(spec.txsPerBlock ? { txsPerBlock: spec.txsPerBlock } : {}),
          sim: { chainId: spec.chainId, ...spec.sim },
        });
        if (spec.haltAt !== undefined) started.sim.halt(spec.haltAt);
        sims.set(spec.chainId, started);
      }
      await writeFile(
        file,
        JSON.stringify({ chains: chains.map((c) => chainEntry(c, sims.get(c.chainId)!.urls)) }),
      );
    };
    await writeChains(args.chains);
    const waiters = new Set<() => void>();
    const listeners = new Set<(chainId: string, height: number) => void>();
    let url!: string;
    /** Runs `start` with the chains file on `port` (0: a free one); resolves once it listens. */
    const launch = (port: number) => {
      const load = () =>
        loadDeploymentConfig(
          {
            CHAINS_FILE: file,
            PORT: String(port),
            HOST: '127.0.0.1',
            ...(args.databaseUrl ? { DATABASE_URL: args.databaseUrl } : { DATA_DIR: dataDir }),
            API_CACHE: 'false',
            PREPARE_WORKERS: '0',
            ...args.env,
          },
          {},
          { serveApi: true },
        )!;
      const config = load();
      return new Promise<void>((resolve, reject) => {
        controller = new AbortController();
        done = runDeploymentProcess({
          config,
          serveApi: true,
          reloadConfig: load,
          reloadOn: (reload) => {
            reloadNow = reload;
            return () => (reloadNow = undefined);
          },
          signal: controller.signal,
          logger: args.logger ?? silentLogger(),
          onListening: (u) => ((url = u), resolve()),
          onCommit: (chainId, height) => {
            commits.set(chainId, (commits.get(chainId) ?? 0) + 1);
            for (const listener of listeners) listener(chainId, height);
            for (const wake of waiters) wake();
            waiters.clear();
          },
        });
        done.catch(reject);
      });
    };
    await launch(0);
    const chains = async (): Promise<ChainCondition[]> => {
      const body = JSON.parse(await getTextOnNewConnection(`${url}/chains`)) as {
        chains: Array<{ chain_id: string; indexed_height: number }>;
      };
      return body.chains.map((c) => ({ chainId: c.chain_id, height: c.indexed_height }) as ChainCondition);
    };
    const databases = createChainDatabases();
    return {
      url,
      chainsFile: file,
      sims,
      chains,
      onCommit(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      async untilIndexed(height = (chainId) => specs.get(chainId)!.head) {
        // Woken by every commit; the check reads the deployment's own /chains.
        for (;;) {
          const woken = new Promise<void>((resolve) => waiters.add(resolve));
          const now = await chains();
          if (now.every((c) => c.height >= height(c.chainId))) return;
          await woken;
        }
      },
      async restart() {
        const port = Number(new URL(url).port);
        controller.abort();
        await done;
        await launch(port);
      },
      async halt() {
        controller.abort();
        await done?.catch(() => undefined);
      },
      async reload(chains) {
        if (typeof chains === 'string') await writeFile(file, chains);
        else await writeChains(chains);
        return reloadNow!();
      },
      commits: (chainId) => commits.get(chainId) ?? 0,
      async chainDb(chainId) {
        const spec = specs.get(chainId)!;
        const url = spec.databaseUrl ?? args.databaseUrl;
        const target: DatabaseTarget = url ? { kind: 'postgres', url } : { kind: 'pglite', dataDir };
        // One opener for every chain: the PGlite chains are views of one embedded database.
        return (await databases.open(chainId, target, { create: false })).db;
      },
      async stop() {
        controller.abort();
        await done?.catch(() => undefined);
        await Promise.all([...sims.values()].map((s) => s.sim.close()));
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    controller.abort();
    await done?.catch(() => undefined);
    await Promise.all([...sims.values()].map((s) => s.sim.close()));
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A deployment whose test does not depend on the store (node and shard faults, the prepare pool,
 * the account stream, the clients under /chains/{chain_id}): on a PostgreSQL database of its own
 * when PostgreSQL is in the run (native: the chains' rows cost the suite a fraction of PGlite's
 * CPU), else on PGlite. stop() drops the database. The
 * embedded deployment is proven by the files that run on both stores (deployment, account routes,
 * reload).
 */
export async function startStoreIndependentDeployment(
  args: Omit<Parameters<typeof startTestDeployment>[0], 'databaseUrl' | 'dataDir'>,
): Promise<TestDeployment> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return startTestDeployment(args);
  const database = await createPostgresTestDb(url, { migrate: false });
  try {
    const deployment = await startTestDeployment({ ...args, databaseUrl: database.url });
    return {
      ...deployment,
      async stop() {
        await deployment.stop();
        await database.dispose();
      },
    };
  } catch (err) {
    await database.dispose();
    throw err;
  }
}

function chainEntry(spec: DeploymentChainSpec, urls: SimulatorUrls) {
  return {
    chain_id: spec.chainId,
    vm: spec.vm,
    rpc: urls.rpc,
    rest: urls.rest,
    ...(urls.jsonRpc ? { json_rpc: urls.jsonRpc } : {}),
    ...(spec.databaseUrl ? { database_url: spec.databaseUrl } : {}),
    ...spec.entry,
  };
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
