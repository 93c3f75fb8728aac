import { packTxText } from '../../wire/tx-packing.js';
import type { AccountEdges } from './account-edges.js';
import { asBuffer } from './dictionary.js';
import type { BlockRow, BlockRows } from './rows.js';

/**
 * The rows a batch of blocks derives before any statement: account and message-type edges, the
 * NFT inputs and each tx table's stored text. Pure, so the block writer and the bulk builder
 * (bench/scale/bulk.ts) write the same rows.
 */

/** The `block` table's columns, in the order `blockRowValues` gives a row's values. */
export const BLOCK_COLUMNS = [
  'height',
  'hash',
  '"timestamp"',
  'block_time_ms',
  'proposer',
  'gas_used',
  'gas_wanted',
  'tx_count',
  'total_fee',
] as const;

/** A block row's values in `BLOCK_COLUMNS` order. */
export function blockRowValues(b: BlockRow): (number | string | Buffer)[] {
  return [
    b.height,
    asBuffer(b.hash),
    b.timestamp,
    b.blockTimeMs,
    b.proposer,
    b.gasUsed,
    b.gasWanted,
    b.txCount,
    b.totalFee,
  ];
}

/** One row of `tx` or `evm_tx` before its sequence and signer id are known. */
export interface TxRowInput {
  hash: Uint8Array;
  height: number;
  signer: Uint8Array;
  data: string;
  /** `data` already packed (`tx` rows made by a prepare worker: TxRow.packed). */
  packed?: Uint8Array | undefined;
}

/** Where a tx table keeps each row's text (docs/ingest.md §9.2): Cosmos txs packed, EVM receipts as text. */
export function txTextColumn(table: 'tx' | 'evm_tx'): {
  column: 'data' | 'data_packed';
  value(row: TxRowInput): string | Uint8Array;
} {
  return table === 'tx'
    ? { column: 'data_packed', value: (row) => (row.packed ? asBuffer(row.packed) : packTxText(row.data)) }
    : { column: 'data', value: (row) => row.data };
}

/**
 * A batch's message-type rows: tx_msg_types edges (each tx's distinct types) and the account x
 * message-type edges (migration 0004: every account edge once per type of its tx). Also what the
 * bulk builder (bench/scale/bulk.ts) writes.
 */
export function msgTypeEdges(
  txs: BlockRows['txs'],
  seqs: readonly number[],
  msgTypeIds: Map<string, number>,
  edges: AccountEdges,
) {
  const typesBySeq = new Map<number, number[]>();
  txs.forEach((t, i) =>
    typesBySeq.set(
      seqs[i]!,
      [...new Set(t.msgTypes)].map((m) => msgTypeIds.get(m)!),
    ),
  );
  const typeEdges = {
    typeIds: [...typesBySeq.values()].flat(),
    seqs: [...typesBySeq].flatMap(([seq, ids]) => ids.map(() => seq)),
  };
  const cross = {
    accounts: [] as number[],
    types: [] as number[],
    seqs: [] as number[],
    signer: [] as boolean[],
  };
  edges.accountIds.forEach((account, i) => {
    const seq = edges.sequences[i]!;
    for (const type of typesBySeq.get(seq)!) {
      cross.accounts.push(account);
      cross.types.push(type);
      cross.seqs.push(seq);
      cross.signer.push(edges.signer[i]!);
    }
  });
  return { typeEdges, cross };
}

export function accountEdges(
  txs: readonly { signer: Uint8Array; accounts: Uint8Array[] }[],
  seqs: readonly number[],
  idOf: (bytes: Uint8Array) => number,
): AccountEdges {
  const accountIds: number[] = [];
  const sequences: number[] = [];
  const signer: boolean[] = [];
  txs.forEach((t, i) => {
    const signerId = idOf(t.signer);
    const seen = new Set<number>();
    for (const account of [t.signer, ...t.accounts]) {
      const id = idOf(account);
      if (seen.has(id)) continue;
      seen.add(id);
      accountIds.push(id);
      sequences.push(seqs[i]!);
      signer.push(id === signerId);
    }
  });
  return { accountIds, sequences, signer };
}

/** Each block's NFT rows with the sequence of its first tx (sequences run on across the batch). */
export function nftInputs(blocks: readonly BlockRows[], fromSequence: number) {
  let next = fromSequence + 1;
  return blocks.flatMap((b) => {
    const firstSequence = next;
    next += b.txs.length;
    return b.nft ? [{ height: b.block.height, timestamp: b.block.timestamp, nft: b.nft, firstSequence }] : [];
  });
}
