import type { BlockReader } from '../../store/readers/blocks.js';
import type { StreamReader } from '../../store/readers/stream.js';
import type { StreamHub } from './hub.js';

/**
 * One chain API's live streams as another part of the process can follow them: its hub (fed by
 * the chain's own commits) and the readers a resume replays from. The deployment's account stream
 * (docs/chains.md §4.4) registers one subscriber per chain here.
 */
export interface StreamSource {
  readonly chainId: string;
  /** The bech32 prefix of the chain's accounts. */
  readonly accountPrefix: string;
  readonly hub: StreamHub;
  readonly reader: StreamReader;
  readonly blocks: BlockReader;
}
