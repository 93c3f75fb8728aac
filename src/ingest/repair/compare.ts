import { bech32 } from 'bech32';
import type { VmType } from '../../shared/config.js';
import type { StoredBlock, StoredHeights, StoredTx } from '../../store/readers/stored-heights.js';
import type { PreparedBlock } from '../prepare/block.js';
import { millisBetween } from '../time.js';

/** One way the index differs from the node (docs/ingest.md §11.1). */
export interface Drift {
  height: number;
  /** What differs: `block.hash`, `tx.missing`, `tx.data`, `tx.accounts`, `evm_tx.data`, … */
  kind: string;
  /** The tx or EVM tx hash, when the drift is in one. */
  hash?: string;
  /** The token (`<collection> <token id>`) or balance (`<denom> <account>`) of a state drift. */
  key?: string;
  /** The route whose answer shows the drift. */
  route: string;
  stored: string;
  node: string;
}

const BLOCK_ROUTE = '/indexer/block/v1/blocks';
const TX_ROUTE = '/indexer/tx/v1/txs';
const EVM_ROUTE = '/indexer/tx/v1/evm-txs';

/** A height as a fresh index would store it, in the stored rows' comparable form. */
interface Expected {
  block: Omit<StoredBlock, 'timestamp' | 'blockTimeMs'> & { blockTimeMs: number | undefined };
  txs: Omit<StoredTx, 'sequence'>[];
  evmTxs: Omit<StoredTx, 'sequence'>[];
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Edges as the block writer derives them: the signer first, each account once. */
function edgesOf(tx: { signer: Uint8Array; accounts: Uint8Array[] }): string[] {
  const signer = hex(tx.signer);
  const accounts = new Set([signer, ...tx.accounts.map(hex)]);
  return [...accounts].map((a) => `${a}:${a === signer}`).sort();
}

/** `previous`: the block before, when it was fetched too (block_time needs its exact node time). */
export function expectedRows(block: PreparedBlock, previous: PreparedBlock | undefined): Expected {
  const b = block.block;
  const expectTx = (t: PreparedBlock['txs'][number] | PreparedBlock['evmTxs'][number]) => ({
    height: t.height,
    hash: hex(t.hash),
    signer: hex(t.signer),
    data: t.data,
    edges: edgesOf(t),
    msgTypes: 'msgTypes' in t ? [...new Set(t.msgTypes)].sort() : [],
  });
  return {
    block: {
      height: b.height,
      hash: hex(b.hash),
      blockTimeMs: previous ? millisBetween(previous.time, block.time) : undefined,
      proposer: b.proposer,
      gasUsed: b.gasUsed,
      gasWanted: b.gasWanted,
      txCount: b.txCount,
      totalFee: b.totalFee,
    },
    txs: block.txs.map(expectTx),
    evmTxs: block.evmTxs.map(expectTx),
  };
}

/**
 * Every difference between the node's blocks (`time`: each one's time as PostgreSQL stores it) and
 * the stored rows of their heights.
 */
export function compareHeights(
  blocks: readonly PreparedBlock[],
  times: readonly string[],
  stored: StoredHeights,
  context: { vm: VmType; accountPrefix: string },
): Drift[] {
  const drifts: Drift[] = [];
  blocks.forEach((block, i) => {
    const expected = expectedRows(
      block,
      blocks[i - 1]?.block.height === block.block.height - 1 ? blocks[i - 1] : undefined,
    );
    const height = block.block.height;
    const storedBlock = stored.blocks.get(height);
    if (!storedBlock) {
      drifts.push({
        height,
        kind: 'block.missing',
        route: `${BLOCK_ROUTE}/${height}`,
        stored: '',
        node: expected.block.hash,
      });
      return;
    }
    drifts.push(...compareBlock(expected.block, times[i]!, storedBlock));
    drifts.push(...compareTxs(height, 'tx', expected.txs, stored.txs.get(height) ?? [], context));
    drifts.push(...compareTxs(height, 'evm_tx', expected.evmTxs, stored.evmTxs.get(height) ?? [], context));
  });
  return drifts;
}

function compareBlock(expected: Expected['block'], time: string, stored: StoredBlock): Drift[] {
  const route = `${BLOCK_ROUTE}/${stored.height}`;
  const fields: [string, string, string][] = [
    ['hash', stored.hash, expected.hash],
    ['time', stored.timestamp, time],
    ['proposer', stored.proposer, expected.proposer],
    ['tx_count', String(stored.txCount), String(expected.txCount)],
    ['gas_used', stored.gasUsed, expected.gasUsed],
    ['gas_wanted', stored.gasWanted, expected.gasWanted],
    ['total_fee', stored.totalFee, expected.totalFee],
  ];
  if (expected.blockTimeMs !== undefined)
    fields.push(['block_time', String(stored.blockTimeMs), String(expected.blockTimeMs)]);
  return fields
    .filter(([, s, n]) => s !== n)
    .map(([field, s, n]) => ({ height: stored.height, kind: `block.${field}`, route, stored: s, node: n }));
}

function compareTxs(
  height: number,
  family: 'tx' | 'evm_tx',
  expected: Expected['txs'],
  stored: readonly StoredTx[],
  context: { vm: VmType; accountPrefix: string },
): Drift[] {
  const drifts: Drift[] = [];
  const route = (hash: string) =>
    family === 'tx' ? `${TX_ROUTE}/${hash.toUpperCase()}` : `${EVM_ROUTE}/0x${hash}`;
  const byHash = new Map(stored.map((t) => [t.hash, t]));
  const expectedHashes = new Set(expected.map((t) => t.hash));
  for (const want of expected) {
    const have = byHash.get(want.hash);
    if (!have) {
      const listRoute = `${family === 'tx' ? TX_ROUTE : EVM_ROUTE}/by_height/${height}`;
      drifts.push({
        height,
        kind: `${family}.missing`,
        hash: want.hash,
        route: listRoute,
        stored: '',
        node: want.hash,
      });
      continue;
    }
    const fields: [string, string, string, string][] = [
      ['data', have.data, want.data, route(want.hash)],
      ['signer', have.signer, want.signer, route(want.hash)],
      [
        'accounts',
        have.edges.join(' '),
        want.edges.join(' '),
        accountRoute(family, want.edges, have.edges, context),
      ],
      ['msg_types', have.msgTypes.join(' '), want.msgTypes.join(' '), route(want.hash)],
    ];
    for (const [field, s, n, r] of fields) {
      if (s !== n)
        drifts.push({ height, kind: `${family}.${field}`, hash: want.hash, route: r, stored: s, node: n });
    }
  }
  for (const extra of stored.filter((t) => !expectedHashes.has(t.hash))) {
    drifts.push({
      height,
      kind: `${family}.unknown`,
      hash: extra.hash,
      route: route(extra.hash),
      stored: extra.hash,
      node: '',
    });
  }
  const order = (list: readonly { hash: string }[]) => list.map((t) => t.hash).join(' ');
  if (drifts.length === 0 && order(stored) !== order(expected)) {
    drifts.push({
      height,
      kind: `${family}.order`,
      route: `${family === 'tx' ? TX_ROUTE : EVM_ROUTE}/by_height/${height}`,
      stored: order(stored),
      node: order(expected),
    });
  }
  return drifts;
}

/** The by-account route of the first account whose edge differs. */
function accountRoute(
  family: 'tx' | 'evm_tx',
  want: readonly string[],
  have: readonly string[],
  context: { vm: VmType; accountPrefix: string },
): string {
  const differing = [...want.filter((e) => !have.includes(e)), ...have.filter((e) => !want.includes(e))];
  const account = (differing[0] ?? want[0] ?? '').split(':')[0]!;
  const text =
    context.vm === 'evm' && family === 'evm_tx'
      ? `0x${account}`
      : bech32.encode(context.accountPrefix, bech32.toWords(Buffer.from(account, 'hex')));
  return `${family === 'tx' ? TX_ROUTE : EVM_ROUTE}/by_account/${text}`;
}
