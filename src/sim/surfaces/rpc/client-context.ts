import type { GeneratedBlock } from '../../chain/blocks.js';
import type { RawResponse } from '../http.js';
import type { RpcContext } from './core.js';
import type { GeneratedTx } from '../../chain/assemble.js';
import type { SimAccount } from '../../chain/keys.js';
import type { SimHttpRequest } from '../../types.js';

/** What the client-facing CometBFT methods (tx search, abci_query, genesis, …) need besides /block. */
export interface ClientRpcContext extends RpcContext {
  seed: number;
  prefix: string;
  accounts: SimAccount[];
  /** Find a tx by upper-case hex hash (undefined when the simulator has not seen it). */
  findTx(hash: string): { block: GeneratedBlock; tx: GeneratedTx } | undefined;
  /** Global index of the first tx at a height (closed form); absent when txs come from recordings. */
  firstTx?(height: number): number;
  /** The simulator's own REST surface (abci_query answers from the same state logic). */
  rest(req: SimHttpRequest): Promise<RawResponse>;
}
