import { createHash } from 'node:crypto';
import { toBech32 } from '../../src/shared/address.js';
import type { VmType } from '../../src/shared/config.js';
import { jsonbText } from '../../src/wire/json-text.js';
import { renderTxResponseJson } from '../../src/wire/tx.js';
import { ensureChainMeta } from '../../src/store/writers/chain-meta.js';
import type { Db } from '../../src/store/driver/db.js';
import { createBlockWriter } from '../../src/store/writers/block-writer.js';
import type { NftBlockRows } from '../../src/store/writers/nft-rows.js';
import type { BlockRows, TxRow } from '../../src/store/writers/rows.js';

/**
 * Chains for the VIP scores tests and bench, written through the real block writer with tx JSON
 * rendered by ingest's own renderer (so the SQL reads exactly what ingest stores).
 */

export interface Coin {
  denom: string;
  amount: string;
}

export interface TxSpec {
  signer: Uint8Array;
  code?: number;
  gasUsed?: string;
  fees?: Coin[];
  /** Message objects with '@type'. */
  messages?: Record<string, unknown>[];
  /** Other accounts the tx touches. */
  others?: Uint8Array[];
}

export interface BlockSpec {
  /** Block time, ms since the epoch. */
  timeMs: number;
  txs: TxSpec[];
  /** NFT changes of the block, as the collectors hand them to the writer. */
  nft?: NftBlockRows;
}

export const accountOf = (label: string, length = 20): Uint8Array =>
  createHash('sha256').update(label).digest().subarray(0, length);

export const bech32Of = (bytes: Uint8Array): string => toBech32(bytes, 'init');
export const hexOf = (bytes: Uint8Array): string => `0x${Buffer.from(bytes).toString('hex')}`;

function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

function txRow(height: number, index: number, timeMs: number, spec: TxSpec): TxRow {
  const hash = createHash('sha256').update(`tx-${height}-${index}`).digest('hex').toUpperCase();
  const signer = bech32Of(spec.signer);
  const messages = spec.messages ?? [{ '@type': '/cosmos.bank.v1beta1.MsgSend', from_address: signer }];
  const restTxJson = jsonbText({
    body: { memo: '', messages, timeout_height: '0' },
    auth_info: {
      fee: { payer: '', amount: spec.fees ?? [], granter: '', gas_limit: '200000' },
      signer_infos: [],
    },
    signatures: [],
  });
  const data = renderTxResponseJson({
    hash,
    height,
    result: {
      code: spec.code ?? 0,
      codespace: spec.code ? 'sdk' : '',
      log: spec.code ? 'out of gas: "quoted" ,"code":0, text' : '',
      gas_wanted: '200000',
      gas_used: spec.gasUsed ?? '50000',
      events: [{ type: 'message', attributes: [{ key: 'sender', value: signer }] }],
    },
    restTxJson,
    blockTime: rfc3339(timeMs),
  });
  const types = [...new Set(messages.map((m) => String(m['@type']).replace(/^\//, '')))];
  const accounts = [spec.signer, ...(spec.others ?? [])];
  const distinct = [...new Map(accounts.map((a) => [Buffer.from(a).toString('hex'), a])).values()];
  return {
    hash: Buffer.from(hash, 'hex'),
    height,
    signer: spec.signer,
    accounts: distinct,
    msgTypes: types,
    data,
  };
}

export function blockRows(height: number, spec: BlockSpec): BlockRows {
  return {
    block: {
      height,
      hash: createHash('sha256').update(`block-${height}`).digest(),
      timestamp: rfc3339(spec.timeMs),
      blockTimeMs: 1000,
      proposer: 'initvaloper1test',
      gasUsed: '0',
      gasWanted: '0',
      txCount: spec.txs.length,
      totalFee: '[]',
    },
    txs: spec.txs.map((t, i) => txRow(height, i, spec.timeMs, t)),
    evmTxs: [],
    ...(spec.nft ? { nft: spec.nft } : {}),
  };
}

/** Writes blocks 1..n through the block writer (batches of `batch` blocks per transaction). */
export async function writeScoresChain(
  db: Db,
  chain: { chainId: string; vm: VmType },
  blocks: Iterable<BlockSpec>,
  batch = 50,
): Promise<number> {
  await ensureChainMeta(db, { chainId: chain.chainId, vmType: chain.vm });
  const writer = await createBlockWriter(db);
  let height = writer.checkpoint().height;
  let pending: BlockRows[] = [];
  for (const spec of blocks) {
    pending.push(blockRows(++height, spec));
    if (pending.length >= batch) {
      await writer.write(pending);
      pending = [];
    }
  }
  if (pending.length) await writer.write(pending);
  return height;
}
