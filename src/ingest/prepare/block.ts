import { bech32 } from 'bech32';
import { AppError } from '../../shared/errors.js';
import { accountBytesFromString } from '../../shared/address.js';
import { boundedMemo } from '../../shared/memo.js';
import type { EvmReceipt } from '../../node/evm.js';
import { restCannotRenderTxs, restErrorAnswer, type RestClient, type RestTx } from '../../node/rest.js';
import type { Logger } from '../../shared/logger.js';
import type { AbciEvent, RawBlock } from '../../node/types.js';
import type { BlockRows, EvmTxRow, TxRow } from '../../store/writers/rows.js';
import type { DecodedTx, TxDecoder } from '../decode/decoded-tx.js';
import { renderEvmTxJson } from '../../wire/evm-tx.js';
import { packTxText } from '../../wire/tx-packing.js';
import type { NftCollector } from '../collect/nft-collector.js';

/** A block with every row ready except what depends on the previous block (block_time). */
export type PreparedBlock = Omit<BlockRows, 'block'> & {
  block: Omit<BlockRows['block'], 'blockTimeMs'>;
  time: string;
};

export interface PrepareContext {
  decoder: TxDecoder;
  rest: RestClient;
  accountPrefix: string;
  /** Proposer operator address → moniker; undefined entries mean "asked, unknown". */
  monikers: Map<string, string | undefined>;
  /** bech32 → account bytes (memoised by the caller). */
  accountBytes: (bech32: string) => Uint8Array;
  /** NFT collector of the chain's VM (node look-ups at the block height); absent = NFTs off. */
  nft?: NftCollector;
  /** Told when txs are stored undecoded (docs/api.md §14). */
  logger?: Logger;
}

/** A bounded memo of docs/ingest.md §6.1 bytes per bech32 string: a chain's active accounts repeat constantly. */
export function createAccountBytesMemo(prefix: string, limit = 100_000): (bech32: string) => Uint8Array {
  return boundedMemo((text) => Buffer.from(accountBytesFromString(text, prefix)), limit);
}

/** Decode and collect one block into rows. I/O only for REST fallbacks and proposer monikers. */
export async function prepareBlock(
  raw: RawBlock,
  receipts: EvmReceipt[] | undefined,
  ctx: PrepareContext,
): Promise<PreparedBlock> {
  const decoded = raw.txs.map((tx, i) => decodeOrFail(ctx.decoder, tx, raw.height, i));
  if (decoded.some((d) => d.unknownTypes.length > 0)) await applyRestFallback(raw, decoded, ctx);
  // The rows before any look-up: unless the REST fallback awaited, a block's CPU work runs in the
  // call itself, which is what a prepare turn measures (turns.ts); work after an await would run
  // after the turn, unmeasured (it was 85 % of a block's time when the rows came last).
  const txs = decoded.map((d, i) => txRow(raw, d, i, ctx));
  const fees = ctx.decoder.sumFees(decoded.map((d) => d.fee));
  const evmTxs = (receipts ?? []).map((r) => evmTxRow(raw.height, r, ctx));
  const proposer = bech32.encode(
    `${ctx.accountPrefix}valoper`,
    bech32.toWords(Buffer.from(raw.proposerAddress, 'hex')),
  );
  const [validator, nft] = await Promise.all([learnMoniker(proposer, ctx), ctx.nft?.(raw)]);
  return {
    time: raw.time,
    block: {
      height: raw.height,
      hash: Buffer.from(raw.hash, 'hex'),
      timestamp: raw.time,
      proposer,
      gasUsed: raw.txResults.reduce((sum, r) => sum + BigInt(r.gasUsed), 0n).toString(),
      gasWanted: raw.txResults.reduce((sum, r) => sum + BigInt(r.gasWanted), 0n).toString(),
      txCount: raw.txs.length,
      totalFee: JSON.stringify(fees),
    },
    txs,
    evmTxs,
    ...(validator ? { validator } : {}),
    ...(nft ? { nft } : {}),
  };
}

/**
 * The first signer as the chain's ante handler verified it: the first `tx` event's `acc_seq`
 * (`<bech32>/<sequence>`, one per signer in order), for a key this release cannot read.
 */
export function anteSigner(events: readonly AbciEvent[]): string | undefined {
  for (const e of events) {
    if (e.type !== 'tx') continue;
    const accSeq = e.attributes.find((a) => a.key === 'acc_seq')?.value;
    const slash = accSeq?.lastIndexOf('/') ?? -1;
    if (slash > 0) return accSeq!.slice(0, slash);
  }
  return undefined;
}

function decodeOrFail(decoder: TxDecoder, tx: string, height: number, index: number): DecodedTx {
  try {
    return decoder.decode(tx);
  } catch (err) {
    throw new AppError(
      'malformed_tx',
      `height ${height}: tx ${index} cannot be decoded: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
}

function txRow(raw: RawBlock, d: DecodedTx, index: number, ctx: PrepareContext): TxRow {
  const result = raw.txResults[index]!;
  const signer = (d.signerKeyUnknown ? anteSigner(result.events) : undefined) ?? d.signer;
  if (signer === undefined)
    throw new AppError(
      'tx_no_signer',
      `height ${raw.height}: tx ${d.hash} has a public key of an unknown type, no tx.acc_seq event and no fee payer`,
    );
  const accounts = ctx.decoder.accounts(result.events, signer);
  const data = ctx.decoder.renderTxJson({
    hash: d.hash,
    height: raw.height,
    result,
    restTxJson: d.restTxJson,
    timestamp: raw.time,
  });
  return {
    hash: Buffer.from(d.hash, 'hex'),
    height: raw.height,
    signer: ctx.accountBytes(signer),
    accounts: accounts.map(ctx.accountBytes),
    msgTypes: d.msgTypes,
    // Its own copy: the decoded bytes may view a larger buffer a worker would post whole.
    ...(d.undecoded ? { undecodedRaw: Buffer.from(d.bytes) } : {}),
    data,
    packed: packTxText(data),
  };
}

function evmTxRow(height: number, receipt: EvmReceipt, ctx: PrepareContext): EvmTxRow {
  const accounts = ctx.decoder.evmReceiptAccounts(receipt);
  return {
    hash: Buffer.from(receipt.transactionHash.replace(/^0x/, ''), 'hex'),
    height,
    signer: ctx.accountBytes(receipt.from),
    accounts: accounts.map(ctx.accountBytes),
    data: renderEvmTxJson(receipt),
  };
}

/**
 * Txs holding a message type the local registry does not know take their JSON and message
 * types from REST, joined on the base64 signatures (docs/ingest.md §3.4). When the node cannot
 * render the block either, those txs are kept as decoded locally and marked undecoded
 * (docs/api.md §14): the block is committed, never retried forever.
 */
async function applyRestFallback(raw: RawBlock, decoded: DecodedTx[], ctx: PrepareContext): Promise<void> {
  let restTxs: RestTx[];
  try {
    restTxs = await ctx.rest.txsOfBlock(raw.height, raw.txs.length);
  } catch (err) {
    if (!restCannotRenderTxs(err)) throw err;
    const undecoded = decoded.filter((d) => d.unknownTypes.length > 0);
    for (const d of undecoded) d.undecoded = true;
    ctx.logger?.warn(
      {
        height: raw.height,
        txs: undecoded.map((d) => d.hash),
        unknown: [...new Set(undecoded.flatMap((d) => d.unknownTypes))],
        node: restErrorAnswer(err)?.message,
      },
      'txs stored undecoded: neither this release nor the node can render them',
    );
    return;
  }
  const byKey = new Map<string, RestTx>();
  for (const t of restTxs) if (t.signatures.length > 0) byKey.set(t.signatures.join(','), t);
  decoded.forEach((d, i) => {
    if (d.unknownTypes.length === 0) return;
    const match = byKey.get(d.signaturesKey);
    if (!match)
      throw new AppError('rest_tx_missing', `height ${raw.height}: tx ${i} has no REST counterpart`);
    const messages = (match.body as { messages?: { '@type'?: string }[] }).messages ?? [];
    d.msgTypes = [...new Set(messages.map((m) => String(m['@type'] ?? '').replace(/^\//, '')))];
    d.restTxJson = ctx.decoder.renderRestTxJson({
      body: match.body,
      auth_info: match.auth_info,
      signatures: match.signatures,
    });
    d.unknownTypes = [];
  });
}

async function learnMoniker(
  operatorAddress: string,
  ctx: PrepareContext,
): Promise<{ operatorAddress: string; moniker: string } | undefined> {
  if (ctx.monikers.has(operatorAddress)) return undefined;
  ctx.monikers.set(operatorAddress, undefined); // asked: blocks prepared meanwhile do not ask again
  let moniker: string | undefined;
  try {
    moniker = await ctx.rest.validatorMoniker(operatorAddress);
  } catch {
    // The node did not answer (a timeout, a 5xx): not "no moniker". The proposer's next block asks
    // again, so a look-up failing once never loses the validator row.
    ctx.monikers.delete(operatorAddress);
    return undefined;
  }
  ctx.monikers.set(operatorAddress, moniker);
  return moniker === undefined ? undefined : { operatorAddress, moniker };
}
