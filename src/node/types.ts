/** Validated shapes read from a rollup node. Produced only by src/node; consumed by ingest. */

export interface AbciAttribute {
  key: string;
  value: string;
  index: boolean;
}

export interface AbciEvent {
  type: string;
  attributes: AbciAttribute[];
}

export interface TxResult {
  code: number;
  codespace: string;
  log: string;
  info: string;
  /** base64 as served. */
  data: string;
  gasWanted: string;
  gasUsed: string;
  events: AbciEvent[];
}

export interface RawBlock {
  height: number;
  chainId: string;
  /** Upper-case hex. */
  hash: string;
  /** RFC 3339 as served by the node (nanoseconds, 'Z'). */
  time: string;
  /** Upper-case hex consensus address. */
  proposerAddress: string;
  /** base64 TxRaw. */
  txs: string[];
  txResults: TxResult[];
  finalizeBlockEvents: AbciEvent[];
}
