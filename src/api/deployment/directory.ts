import type http from 'node:http';
import type { ChainCondition } from '../../shared/chain-condition.js';
import type { Db } from '../../store/driver/db.js';
import type { StreamSource } from '../stream/source.js';

export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** One chain of a deployment, as the deployment's API sees it (docs/chains.md §2). */
export interface DeployedChain {
  readonly chainId: string;
  condition(): ChainCondition;
  /** The chain's own API (every single-chain route); undefined until its identity is known. */
  handler(): RequestHandler | undefined;
  /** The database its API reads; undefined until opened. */
  db(): Db | undefined;
  /** Its API's live streams (hub and readers); undefined until its API serves. */
  streams(): StreamSource | undefined;
}

/**
 * The chains of one deployment, in the chains file's order. The set changes when the chains file
 * is read again (docs/chains.md §6): every route reads it per request.
 */
export interface ChainDirectory {
  readonly chains: readonly DeployedChain[];
  get(chainId: string): DeployedChain | undefined;
  /** The chain the root single-chain routes serve: the only one, else DEFAULT_CHAIN_ID's. */
  readonly rootChain: DeployedChain | undefined;
  /** Told after each change of the set, before any chain left out is closed (open account streams). */
  onChange(listener: () => void): void;
}

/** The directory the process changes: `replace` puts a new set in place and tells the listeners. */
export interface MutableChainDirectory extends ChainDirectory {
  replace(chains: readonly DeployedChain[], defaultChainId: string | undefined): void;
}

export function createChainDirectory(
  chains: readonly DeployedChain[],
  defaultChainId?: string,
): MutableChainDirectory {
  let current = chains;
  let byId = new Map<string, DeployedChain>();
  let root: DeployedChain | undefined;
  const listeners: (() => void)[] = [];
  const place = (next: readonly DeployedChain[], defaultId: string | undefined) => {
    current = next;
    byId = new Map(next.map((c) => [c.chainId, c]));
    const rootId = next.length === 1 ? next[0]!.chainId : defaultId;
    root = rootId === undefined ? undefined : byId.get(rootId);
  };
  place(chains, defaultChainId);
  return {
    get chains() {
      return current;
    },
    get: (chainId) => byId.get(chainId),
    get rootChain() {
      return root;
    },
    replace(next, defaultId) {
      place(next, defaultId);
      for (const listener of listeners) listener();
    },
    onChange: (listener) => void listeners.push(listener),
  };
}
