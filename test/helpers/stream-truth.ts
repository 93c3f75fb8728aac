import type { Simulator } from '../../src/sim/types.js';
import type { ReceivedEvent } from './stream-client.js';

/** What a tx stream's filter selects, computed from the simulator's own truth (not from the indexer). */
export interface TruthFilter {
  account?: string;
  signerOnly?: boolean;
  msg?: string;
  fromHeight: number;
}

/** The hashes a tx stream with filter `f` must carry for heights up to `upto`, in chain order. */
export function truthHashes(sim: Simulator, upto: number, f: TruthFilter): string[] {
  const hashes: string[] = [];
  for (let h = f.fromHeight; h <= upto; h++) {
    for (const tx of sim.truth.block(h).txs) {
      if (
        f.account !== undefined &&
        !(f.signerOnly ? tx.signer === f.account : tx.accounts.includes(f.account))
      )
        continue;
      if (f.msg !== undefined && !tx.msgTypes.includes(f.msg)) continue;
      hashes.push(tx.hash);
    }
  }
  return hashes;
}

/** The `txhash` of a `tx` event. */
export const hashOf = (e: ReceivedEvent): string => (JSON.parse(e.data) as { txhash: string }).txhash;
