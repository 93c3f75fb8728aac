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

/** The chains of one deployment, in the chains file's order. */
export interface ChainDirectory {
  readonly chains: readonly DeployedChain[];
  get(chainId: string): DeployedChain | undefined;
  /** The chain the root single-chain routes serve: the only one, else DEFAULT_CHAIN_ID's. */
  readonly rootChain: DeployedChain | undefined;
}

export function createChainDirectory(
  chains: readonly DeployedChain[],
  defaultChainId?: string,
): ChainDirectory {
  const byId = new Map(chains.map((c) => [c.chainId, c]));
  const rootId = chains.length === 1 ? chains[0]!.chainId : defaultChainId;
  return {
    chains,
    get: (chainId) => byId.get(chainId),
    rootChain: rootId === undefined ? undefined : byId.get(rootId),
  };
}
