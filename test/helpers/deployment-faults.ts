import { expect } from 'vitest';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorOptions, VmType } from '../../src/sim/types.js';
import type { TestDeployment } from './deployment.js';
import { freePort } from './pg-cluster.js';
import { expectIngestMatchesTruth } from './truth.js';

/** One chain of `GET /chains` (docs/chains.md §2.1). */
export interface ChainView {
  chain_id: string;
  vm?: string;
  state: 'starting' | 'catching_up' | 'ok' | 'stalled';
  indexed_height: number;
  node_height?: number;
  last_error?: { message: string; since: string };
}

export async function chainViews(url: string): Promise<Map<string, ChainView>> {
  const res = await fetch(`${url}/chains`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { chains: ChainView[] };
  return new Map(body.chains.map((c) => [c.chain_id, c]));
}

/**
 * Resolves with the first truthy answer of `probe`, asked every 100 ms (a condition to reach, not
 * a delay); fails after `timeoutMs` naming what it waited for and the last thing seen.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const got = await probe();
      if (got) return got;
      last = got;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Simulator options that put a node on ports of its own, kept when it is restarted or replaced. */
export async function fixedPorts(vm: VmType): Promise<Partial<SimulatorOptions>> {
  return {
    rpcPort: await freePort(),
    restPort: await freePort(),
    ...(vm === 'evm' ? { jsonRpcPort: await freePort() } : {}),
  };
}

/**
 * A chain's node that a test takes away and puts back: the deployment's simulator, closed and
 * listening again on its ports, or replaced on those ports by another simulator.
 */
export class ReplaceableNode {
  private stand: Simulator | undefined;

  constructor(
    readonly chain: Simulator,
    /** The options `chain` was created with (ports included). */
    private readonly options: SimulatorOptions,
  ) {}

  /** The simulator answering on the chain's ports now. */
  serving(): Simulator {
    return this.stand ?? this.chain;
  }

  async kill(): Promise<void> {
    await this.serving().close();
  }

  /** The chain's own node, back on its ports (the live head went on meanwhile). */
  async restore(): Promise<void> {
    await this.kill();
    if (this.stand) this.stand = undefined;
    await this.chain.listen();
  }

  /** Another node on the chain's ports, at the chain's head: `changes` says how it differs. */
  async replace(changes: Partial<SimulatorOptions>): Promise<Simulator> {
    await this.kill();
    this.stand = createSimulator({ ...this.options, head: this.chain.head(), ...changes });
    await this.stand.listen();
    return this.stand;
  }
}

/**
 * While `faulty` is in trouble, every other chain keeps committing: each goes `blocks` past where
 * it stood and stays `ok` (within a few blocks of its node). When `faulty` is stalled it commits
 * nothing its node did not serve before the fault: past `servedUpTo` (its node's head when the
 * fault began) when given, else it gains fewer heights than each of the others. (A chain may
 * commit blocks it fetched before the fault while stalled: a bound by gains alone failed on a
 * loaded host, where the chain ran a few blocks behind its node.)
 */
export async function expectOthersAdvance(
  deployment: TestDeployment,
  faulty: string,
  blocks: number,
  { stalled = true, servedUpTo }: { stalled?: boolean; servedUpTo?: number } = {},
): Promise<Map<string, ChainView>> {
  const before = await chainViews(deployment.url);
  const targets = new Map(
    [...before].filter(([id]) => id !== faulty).map(([id, c]) => [id, c.indexed_height + blocks]),
  );
  const after = await until(`the chains other than ${faulty} to commit ${blocks} more blocks`, async () => {
    const now = await chainViews(deployment.url);
    const behind = [...targets].some(
      ([id, h]) => now.get(id)!.indexed_height < h || now.get(id)!.state !== 'ok',
    );
    return !behind && now;
  });
  const gained = (id: string) => after.get(id)!.indexed_height - before.get(id)!.indexed_height;
  if (stalled && servedUpTo !== undefined)
    expect(after.get(faulty)!.indexed_height, faulty).toBeLessThanOrEqual(servedUpTo);
  else if (stalled)
    for (const id of targets.keys()) expect(gained(faulty), `${faulty} vs ${id}`).toBeLessThan(gained(id));
  return after;
}

/** `chainId`'s condition once it is stalled with an error matching `error`. */
export function untilStalled(
  deployment: TestDeployment,
  chainId: string,
  error: RegExp,
  timeoutMs?: number,
): Promise<ChainView> {
  let seen: ChainView | undefined;
  return until(
    `${chainId} to be stalled with ${String(error)}`,
    async () => {
      const c = (seen = (await chainViews(deployment.url)).get(chainId)!);
      return c.state === 'stalled' && error.test(c.last_error?.message ?? '') && c;
    },
    timeoutMs,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; /chains showed ${JSON.stringify(seen)}`);
  });
}

/** `chainId` is ok again and has committed its node's head as of now (and on). */
export async function untilRecovered(
  deployment: TestDeployment,
  chainId: string,
  sim: Simulator,
): Promise<void> {
  const head = sim.head();
  await until(`${chainId} to recover and reach height ${head}`, async () => {
    const c = (await chainViews(deployment.url)).get(chainId)!;
    return c.state === 'ok' && c.indexed_height >= head && c.last_error === undefined;
  });
}

/** A stalled chain's own routes still answer from its index. */
export async function expectServedFromIndex(deployment: TestDeployment, chainId: string): Promise<void> {
  const res = await fetch(`${deployment.url}/chains/${chainId}/indexer/block/v1/blocks/1`);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { block: { height: string } }).block.height).toBe('1');
}

/**
 * After halt(): every chain's rows equal its simulator's truth up to its checkpoint (no height
 * skipped or repeated), and each went at least as far as `least`.
 */
export async function expectEveryChainMatchesTruth(
  deployment: TestDeployment,
  least: ReadonlyMap<string, number>,
): Promise<void> {
  for (const [chainId, { sim }] of deployment.sims) {
    const db = await deployment.chainDb(chainId);
    try {
      const { rows } = await db.query<{ height: number }>(
        "SELECT height FROM checkpoint WHERE stream = 'blocks'",
      );
      const height = rows[0]!.height;
      expect(height, chainId).toBeGreaterThanOrEqual(least.get(chainId) ?? 1);
      await expectIngestMatchesTruth(db, sim, height);
    } finally {
      await db.close();
    }
  }
}
