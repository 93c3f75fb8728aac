import type { DeployedChain, MutableChainDirectory } from '../api/deployment/directory.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Registry } from '../shared/metrics.js';

/** One chain the set runs: what the deployment's API sees of it, its metrics, its work and its end. */
export interface SupervisedChain extends DeployedChain {
  readonly registry: Registry;
  /** Runs until the chain's signal fires (or it ends by itself: `--until`). */
  run(): Promise<void>;
  close(): Promise<void>;
}

export interface ChainSetEntry<C> {
  chainId: string;
  config: C;
}

/** What a reload changed, by chain id (docs/chains.md §6). */
export interface ChainSetChange {
  added: string[];
  removed: string[];
  restarted: string[];
}

export interface ChainSet<C> {
  readonly chains: readonly SupervisedChain[];
  /** The directory the deployment's API reads: each change puts the new set in it first. */
  publish(directory: MutableChainDirectory): void;
  /** Builds the first set, in the file's order (nothing runs yet). */
  create(entries: readonly ChainSetEntry<C>[]): void;
  /** Starts every chain of the first set (once the deployment serves). */
  start(): void;
  /**
   * Puts a new set in place: new chains start, chains left out stop (their rows stay), a chain
   * whose entry changed is stopped and started again with the new one; the others go on untouched.
   * Changes are applied one at a time, in the order they were asked.
   */
  apply(entries: readonly ChainSetEntry<C>[], defaultChainId: string | undefined): Promise<ChainSetChange>;
  /** Resolves once every chain has ended (the deployment's signal, `--until`), reloads included. */
  ended(): Promise<void>;
  /** Closes every chain (after the deployment's signal). */
  close(): Promise<void>;
}

interface Member {
  chainId: string;
  /** The entry it was started with, as JSON: a reload compares it with the file's new entry. */
  key: string;
  chain: SupervisedChain;
  stop: AbortController;
  done?: Promise<void>;
}

/**
 * The chains a deployment runs, changed while it runs (docs/chains.md §6). `make` builds one
 * chain on its own signal (the deployment's, or its removal); the directory the API reads is
 * updated before a chain left out is stopped, so no request reaches a closing chain.
 */
export function createChainSet<C>(ctx: {
  make(config: C, signal: AbortSignal): SupervisedChain;
  logger: Logger;
  signal: AbortSignal;
}): ChainSet<C> {
  let members: Member[] = [];
  let changing: Promise<unknown> = Promise.resolve();
  let generation = 0;
  let directory: MutableChainDirectory | undefined;

  const launch = ({ chainId, config }: ChainSetEntry<C>): Member => {
    const stop = new AbortController();
    const chain = ctx.make(config, AbortSignal.any([ctx.signal, stop.signal]));
    return { chainId, key: JSON.stringify(config), chain, stop };
  };
  const begin = (m: Member) => {
    m.done = m.chain.run().catch((err: unknown) => {
      ctx.logger.error({ chain_id: m.chainId, err: errorMessage(err) }, 'chain ended with an error');
    });
  };
  const retire = async (m: Member) => {
    m.stop.abort();
    await m.done;
    await m.chain.close();
  };

  async function change(entries: readonly ChainSetEntry<C>[], defaultChainId: string | undefined) {
    const old = new Map(members.map((m) => [m.chainId, m]));
    const result: ChainSetChange = { added: [], removed: [], restarted: [] };
    const retiring: Member[] = [];
    const starting: Member[] = [];
    const next = entries.map((entry) => {
      const was = old.get(entry.chainId);
      old.delete(entry.chainId);
      if (was && was.key === JSON.stringify(entry.config)) return was;
      const fresh = launch(entry);
      (was ? result.restarted : result.added).push(entry.chainId);
      if (was) retiring.push(was);
      starting.push(fresh);
      return fresh;
    });
    for (const gone of old.values()) {
      result.removed.push(gone.chainId);
      retiring.push(gone);
    }
    members = next;
    generation += 1;
    // The API sees the new set first: a chain being restarted answers 503 until its new run serves.
    directory?.replace(
      next.map((m) => m.chain),
      defaultChainId,
    );
    const restarting = new Set(result.restarted);
    for (const m of starting) if (!restarting.has(m.chainId)) begin(m);
    // A restarted chain's new run starts once the old one has let go of its rows.
    await Promise.all(retiring.map(retire));
    for (const m of starting) if (restarting.has(m.chainId)) begin(m);
    return result;
  }

  return {
    get chains() {
      return members.map((m) => m.chain);
    },
    publish(published) {
      directory = published;
    },
    create(entries) {
      members = entries.map(launch);
    },
    start() {
      for (const m of members) if (!m.done) begin(m);
    },
    apply(entries, defaultChainId) {
      const applied = changing.then(() => change(entries, defaultChainId));
      changing = applied.catch(() => undefined);
      return applied;
    },
    async ended() {
      for (;;) {
        const seen = generation;
        await Promise.all(members.map((m) => m.done));
        await changing;
        if (seen === generation) return;
      }
    },
    async close() {
      await changing;
      await Promise.all(members.map((m) => m.chain.close()));
    },
  };
}

/** A reload's result: what changed, or why the file was refused (nothing changed then). */
export type ReloadOutcome = ({ ok: true } & ChainSetChange) | { ok: false; error: string };

/**
 * Reads the chains file again and applies it (docs/chains.md §6): `load` validates it whole
 * first, so a bad file changes nothing and is logged with the same file/line/field error as at
 * start.
 */
export function chainsReloader<C>(
  set: ChainSet<C>,
  logger: Logger,
  load: () => { entries: ChainSetEntry<C>[]; defaultChainId: string | undefined },
): () => Promise<ReloadOutcome> {
  return async () => {
    let next: ReturnType<typeof load>;
    try {
      next = load();
    } catch (err) {
      const error = errorMessage(err);
      logger.error({ code: (err as { code?: string }).code }, `chains file not reloaded: ${error}`);
      return { ok: false, error };
    }
    const change = await set.apply(next.entries, next.defaultChainId);
    logger.info({ ...change, chains: set.chains.map((c) => c.chainId) }, 'chains file reloaded');
    return { ok: true, ...change };
  };
}

/** The operator's trigger: SIGHUP reads the chains file again (reloads apply one at a time). */
export function onSighup(reload: () => Promise<unknown>): () => void {
  const handler = () => void reload();
  process.on('SIGHUP', handler);
  return () => process.off('SIGHUP', handler);
}
