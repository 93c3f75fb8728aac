import { Type } from '@sinclair/typebox';
import { listEnvelope } from './pagination.js';

/**
 * The EVM internal tx document (docs/api.md, tx.EvmInternalTx): one call frame of a traced EVM tx,
 * stored in `evm_internal_tx.data` as the exact text the API serves, keys in
 * EVM_INTERNAL_TX_KEY_ORDER; and the row it is stored in.
 */

/** Version of the stored text (see TX_FORMAT_VERSION in ./tx.ts for what a version is). */
export const EVM_INTERNAL_TX_FORMAT_VERSION = 1;

export const EVM_INTERNAL_TX_KEY_ORDER = [
  'height',
  'hash',
  'parent_index',
  'index',
  'type',
  'from',
  'to',
  'input',
  'output',
  'value',
  'gas',
  'gasUsed',
] as const;

const evenHexString = (what: string) =>
  Type.String({ description: `${what}: 0x + even-length lower-case hex` });
export const EvmInternalTx = Type.Object(
  {
    height: Type.Integer(),
    hash: Type.String({ description: 'EVM tx hash, 0x + 64 lower-case hex' }),
    parent_index: Type.Integer({ description: '-1 for the top frame' }),
    index: Type.Integer({ description: 'depth-first position inside the tx (top frame 0)' }),
    type: Type.String({ description: 'CALL, STATICCALL, DELEGATECALL, CREATE, ...' }),
    from: Type.String({ description: '0x + 40 hex, "" when none' }),
    to: Type.String({ description: '0x + 40 hex, "" when none' }),
    input: evenHexString('call data'),
    output: evenHexString('return data ("0x" for the top frame)'),
    value: evenHexString('wei'),
    gas: evenHexString('gas'),
    gasUsed: evenHexString('gas used'),
  },
  { $id: 'tx.EvmInternalTx' },
);
export const EvmInternalTxsResponse = listEnvelope(
  'tx.EvmInternalTxsResponse',
  'internal_txs',
  'tx.EvmInternalTx',
);

/** One call frame as the tracer reports it (hex quantities as the node writes them). */
export interface CallFrameLike {
  readonly type: string;
  readonly input?: string | undefined;
  readonly output?: string | undefined;
  readonly value?: string | undefined;
  readonly gas?: string | undefined;
  readonly gasUsed?: string | undefined;
}

/** Where a frame sits: its tx (0x + lower hex), depth-first index and parent, and its accounts. */
export interface FramePosition {
  readonly height: number;
  readonly txHash: string;
  readonly index: number;
  readonly parentIndex: number;
  /** `0x` + lower hex of the normalised account, "" when the frame has none. */
  readonly fromHex: string;
  readonly toHex: string;
}

export function renderEvmInternalTxJson(frame: CallFrameLike, at: FramePosition): string {
  const document: Record<(typeof EVM_INTERNAL_TX_KEY_ORDER)[number], string | number> = {
    height: at.height,
    hash: at.txHash,
    parent_index: at.parentIndex,
    index: at.index,
    type: frame.type,
    from: at.fromHex,
    to: at.toHex,
    input: evenHex(frame.input),
    // The top frame's output is not recorded (as the reference).
    output: at.index === 0 ? '0x' : evenHex(frame.output),
    value: evenHex(frame.value),
    gas: evenHex(frame.gas),
    gasUsed: evenHex(frame.gasUsed),
  };
  return JSON.stringify(document);
}

/** The stored byte form of a tracer hex string: "0x" + even-length lower hex ("0x0" → "0x00"). */
export function evenHex(value: string | undefined): string {
  const digits = (value ?? '0x').slice(2).toLowerCase();
  return '0x' + (digits.length % 2 === 1 ? '0' + digits : digits);
}

/** One call frame as stored: its document text and the accounts it touches. */
export interface EvmInternalTxRow {
  height: number;
  /** The EVM tx hash (32 bytes). */
  hash: Uint8Array;
  /** The document text, ready to send. */
  data: string;
  /** Normalised bytes of `from` (absent when the frame has none). */
  from: Uint8Array | undefined;
  /** Distinct normalised accounts of {from, to}. */
  accounts: Uint8Array[];
  /** The frame's failure as the tracer reported it (stored beside the document, not in it). */
  error: string | undefined;
  revertReason: string | undefined;
}
