import { expect } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import type { Simulator } from '../../src/sim/types.js';

/**
 * The EVM truth is the simulator's own JSON-RPC answers, asked the way a wallet would (a block's
 * tx hashes from eth_getBlockByNumber, each receipt from eth_getTransactionReceipt), not the
 * eth_getBlockReceipts batch ingest reads, and rendered here from the spec (docs/api.md §5.3,
 * docs/ingest.md §6.1/§6.3) rather than by the collector.
 */

interface Receipt {
  transactionHash: string;
  blockNumber: string;
  transactionIndex: string;
  from: string;
  to: string | null;
  contractAddress: string | null;
  logs: Array<Record<string, unknown> & { address: string; topics: string[] }> | null;
  [key: string]: unknown;
}

export interface ExpectedEvmTx {
  hash: string;
  height: number;
  signer: string;
  /** The stored text: the 14 receipt keys in the spec's order. */
  data: string;
  /** Distinct account hex (no 0x), sorted, and whether each is the signer. */
  accounts: string[];
  signerFlags: boolean[];
}

const HEIGHTS_PER_BATCH = 100;
/** The sim answers locally in milliseconds; a reply this late is an injected hang. */
const ATTEMPT_TIMEOUT_MS = 5_000;
const ATTEMPTS = 40;

/**
 * One JSON-RPC batch, retried whole until every reply carries a result: the faults test points
 * this at a surface that answers 5xx, 429, resets and hangs on purpose.
 */
async function rpcBatch(
  url: string,
  calls: Array<{ method: string; params: unknown[] }>,
): Promise<unknown[]> {
  const body = JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c })));
  let last: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      const replies = JSON.parse(text) as Array<{ id: number; result?: unknown; error?: unknown }>;
      const byId = new Map(replies.map((r) => [r.id, r]));
      return calls.map((c, id) => {
        const reply = byId.get(id);
        if (!reply || reply.error !== undefined || reply.result === undefined || reply.result === null)
          throw new Error(`${c.method}(${JSON.stringify(c.params)}): ${JSON.stringify(reply)}`);
        return reply.result;
      });
    } catch (err) {
      last = err;
    }
  }
  throw new Error(`EVM JSON-RPC truth unavailable after ${ATTEMPTS} attempts`, { cause: last });
}

const hex = (n: number) => '0x' + n.toString(16);

/** docs/ingest.md §6.1 for hex text: strip 0x and every leading zero, then pad to 20 or 32 bytes. */
function accountHex(text: string): string {
  const digits = text.replace(/^0x/, '').replace(/^0+/, '').toLowerCase();
  if (digits.length > 64) throw new Error(`not an account: ${text}`);
  return digits.padStart(digits.length <= 40 ? 40 : 64, '0');
}

/** docs/ingest.md §6.3: from, to, contractAddress, each log's address and its zero-padded topics 1..n. */
function receiptAccounts(r: Receipt): string[] {
  const found = [r.from, r.to ?? '', r.contractAddress ?? ''].filter((a) => a !== '');
  for (const log of r.logs ?? []) {
    found.push(log.address);
    found.push(...log.topics.slice(1).filter((t) => t.startsWith('0x' + '0'.repeat(24))));
  }
  return [...new Set(found.map(accountHex))].sort();
}

const LOG_KEYS = [
  'address',
  'topics',
  'data',
  'blockNumber',
  'transactionHash',
  'transactionIndex',
  'blockHash',
  'logIndex',
  'removed',
];

/** docs/api.md §5.3: exactly these keys in this order; `to: null` (contract creation) becomes "". */
function receiptText(r: Receipt): string {
  return JSON.stringify({
    blockHash: r.blockHash,
    blockNumber: r.blockNumber,
    contractAddress: r.contractAddress ?? null,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    from: r.from,
    gasUsed: r.gasUsed,
    logs: r.logs === null ? null : r.logs.map((l) => Object.fromEntries(LOG_KEYS.map((k) => [k, l[k]]))),
    logsBloom: r.logsBloom,
    status: r.status,
    to: r.to ?? '',
    transactionHash: r.transactionHash,
    transactionIndex: r.transactionIndex,
    type: r.type,
  });
}

/**
 * Every receipt of heights 1..head in chain order, as the node serves them. The node's block tx
 * list is first checked against the simulator's truth: same count per block, and the EVM hash
 * wherever the truth names one.
 */
export async function evmTxTruth(sim: Simulator, head: number): Promise<ExpectedEvmTx[]> {
  const url = (await sim.listen()).jsonRpc;
  if (url === undefined) throw new Error('the simulator serves no EVM JSON-RPC');
  const out: ExpectedEvmTx[] = [];
  for (let from = 1; from <= head; from += HEIGHTS_PER_BATCH) {
    const heights = Array.from({ length: Math.min(HEIGHTS_PER_BATCH, head - from + 1) }, (_, i) => from + i);
    const blocks = (await rpcBatch(
      url,
      heights.map((h) => ({ method: 'eth_getBlockByNumber', params: [hex(h), false] })),
    )) as Array<{ transactions: string[] }>;
    const txsOf = heights.map((h) => sim.truth.block(h).txs);
    // One comparison per batch (not per tx): the node's hashes where the truth names an EVM hash.
    const nodeHashes = heights.map((_, i) => blocks[i]!.transactions);
    expect(
      nodeHashes.map((hashes, i) =>
        hashes.map((hash, j) => (txsOf[i]![j]?.evmHash === undefined ? '' : hash)),
      ),
      `EVM txs of heights ${from}.. (node vs truth)`,
    ).toEqual(txsOf.map((txs) => txs.map((t) => t.evmHash ?? '')));
    const located = heights.flatMap((h, i) =>
      nodeHashes[i]!.map((hash, index) => ({ hash, height: h, index })),
    );
    if (located.length === 0) continue;
    const receipts = (await rpcBatch(
      url,
      located.map((l) => ({ method: 'eth_getTransactionReceipt', params: [l.hash] })),
    )) as Receipt[];
    expect(receipts.map((r) => [r.transactionHash, r.blockNumber, r.transactionIndex])).toEqual(
      located.map((l) => [l.hash, hex(l.height), hex(l.index)]),
    );
    located.forEach((l, i) => {
      const r = receipts[i]!;
      const accounts = receiptAccounts(r);
      const signer = accountHex(r.from);
      out.push({
        hash: l.hash,
        height: l.height,
        signer,
        data: receiptText(r),
        accounts,
        signerFlags: accounts.map((a) => a === signer),
      });
    });
  }
  return out;
}

/**
 * evm_tx and evm_tx_accounts equal the node's receipts for heights 1..head exactly: one row per
 * receipt under a gapless sequence in chain order (no duplicate, no spurious row), hash, height,
 * signer, receipt JSON text, each row's account edges with the signer flag, no edge outside a
 * stored tx, and the checkpoint's EVM sequence. Returns the row count.
 */
export async function expectEvmTxsMatchNode(db: Db, sim: Simulator, head: number): Promise<number> {
  const expected = await evmTxTruth(sim, head);
  const { rows } = await db.query<{
    sequence: number;
    hash: Uint8Array;
    height: number;
    signer: Uint8Array;
    data: string;
  }>(`SELECT e.sequence, e.hash, e.height, s.account AS signer, e.data
        FROM evm_tx e JOIN account_dict s ON s.id = e.signer_id ORDER BY e.sequence`);
  // Edges grouped in one pass (evm_tx_accounts has no index by sequence alone); a group whose
  // sequence has no evm_tx row is a stray edge and fails the count below.
  const grouped = await db.query<{ sequence: number; accounts: Uint8Array[]; signer_flags: boolean[] }>(
    `SELECT a.sequence, array_agg(d.account ORDER BY d.account) AS accounts,
            array_agg(a.signer ORDER BY d.account) AS signer_flags
       FROM evm_tx_accounts a JOIN account_dict d ON d.id = a.account_id GROUP BY a.sequence`,
  );
  const edgesOf = new Map(grouped.rows.map((g) => [Number(g.sequence), g]));
  const bytesHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  const stored = rows.map((r) => ({
    sequence: Number(r.sequence),
    hash: '0x' + bytesHex(r.hash),
    height: Number(r.height),
    signer: bytesHex(r.signer),
    accounts: (edgesOf.get(Number(r.sequence))?.accounts ?? []).map(bytesHex),
    signerFlags: edgesOf.get(Number(r.sequence))?.signer_flags ?? [],
  }));
  // Everything but the JSON first, so a duplicate or missing row shows as a short, readable diff.
  expect(stored).toEqual(
    expected.map((e, i) => ({
      sequence: i + 1,
      hash: e.hash,
      height: e.height,
      signer: e.signer,
      accounts: e.accounts,
      signerFlags: e.signerFlags,
    })),
  );
  rows.forEach((r, i) => expect(r.data, `evm_tx ${i + 1} data`).toBe(expected[i]!.data));
  expect(grouped.rows.length, 'evm txs with account edges').toBe(rows.length);
  const checkpoint = await db.query<{ evm_sequence: number }>(
    "SELECT evm_sequence FROM checkpoint WHERE stream = 'blocks'",
  );
  expect(Number(checkpoint.rows[0]?.evm_sequence), 'checkpoint evm_sequence').toBe(expected.length);
  return expected.length;
}
