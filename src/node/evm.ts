import { z } from 'zod';
import { AppError } from '../shared/errors.js';
import type { NodePurpose } from './metrics.js';
import { spanOf, type HeightSpan } from './endpoint-routing.js';
import type { Transport } from './transport.js';
import { nullBlockRefusal, type RefusalCheck } from './refusals.js';

/** An eth_getBlockReceipts entry as served (lower-case 0x hex strings). */
export type EvmReceipt = Record<string, unknown> & {
  transactionHash: string;
  from: string;
  logs: unknown[] | null;
};

/** One frame of a callTracer trace (hex strings as the node sends them). */
export interface CallFrame {
  type: string;
  from: string;
  to?: string | undefined;
  value?: string | undefined;
  gas?: string | undefined;
  gasUsed?: string | undefined;
  input?: string | undefined;
  output?: string | undefined;
  error?: string | undefined;
  /** The decoded Error(string) of a revert, when the tracer could decode one. */
  revertReason?: string | undefined;
  calls?: CallFrame[] | undefined;
}

/** One tx of `debug_traceBlockByNumber`: its call tree, or the error that kept it from being traced. */
export interface TxTrace {
  txHash: string;
  result?: CallFrame | undefined;
  error?: string | undefined;
}

const METHOD_NOT_FOUND = -32601;
const BALANCE_OF = '0x70a08231';
const TOTAL_SUPPLY = '0x18160ddd';
/** geth and minievm answer a reverted eth_call with this JSON-RPC error code. */
const REVERTED = 3;
const hexString = z.string().regex(/^0x[0-9a-fA-F]*$/);
const callFrameSchema: z.ZodType<CallFrame> = z.lazy(() =>
  z.object({
    type: z.string().min(1),
    from: hexString,
    to: hexString.optional(),
    value: hexString.optional(),
    gas: hexString.optional(),
    gasUsed: hexString.optional(),
    input: hexString.optional(),
    output: hexString.optional(),
    error: z.string().optional(),
    revertReason: z.string().optional(),
    calls: z.array(callFrameSchema).optional(),
  }),
);
const blockTraceSchema = z.array(
  z.object({
    txHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
    result: callFrameSchema.optional(),
    error: z.string().optional(),
  }),
);

export interface EvmClient {
  /**
   * eth_getBlockReceipts for many heights in one batch; a height not produced yet is undefined.
   * `holdsTxs[i]`: the block at `heights[i]` has EVM txs, so `[]` for it is a refusal, never an
   * empty block (docs/node-data.md §5.2).
   */
  receiptsOf(
    heights: readonly number[],
    holdsTxs?: readonly boolean[],
  ): Promise<(EvmReceipt[] | undefined)[]>;
  /** debug_traceBlockByNumber with the callTracer, for many heights in one batch. */
  traceBlocks(heights: readonly number[]): Promise<TxTrace[][]>;
  /** ERC20 `balanceOf` of each (token, 20-byte account hex) at a height, in one batch. */
  erc20BalancesAt(pairs: readonly { token: string; account: string }[], height: number): Promise<bigint[]>;
  /** ERC20 `totalSupply()` of each token at a height, in one batch; undefined where it reverts or answers no word. */
  erc20SuppliesAt(tokens: readonly string[], height: number): Promise<Array<bigint | undefined>>;
}

interface Reply {
  id?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string };
}

type Batch = (
  purpose: NodePurpose,
  calls: { method: string; params: unknown[] }[],
  heights: HeightSpan | undefined,
  refusal?: RefusalCheck,
) => Promise<Reply[]>;

/** One JSON-RPC batch through the transport: every call's reply, in call order. */
function batchCaller(transport: Transport): Batch {
  return async (purpose, calls, heights, refusal) => {
    const body = calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c }));
    const res = await transport.request({
      method: 'POST',
      path: '',
      body: JSON.stringify(body),
      purpose,
      calls: { [purpose]: calls.length },
      ...(heights ? { heights } : {}),
      ...(refusal ? { refusal } : {}),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.text);
    } catch (err) {
      throw new AppError('node_bad_json', 'json-rpc response is not JSON', { cause: err, retryable: true });
    }
    if (!Array.isArray(parsed))
      throw new AppError('node_batch_error', 'json-rpc batch failed', { retryable: true });
    const byId = new Map<number, Reply>();
    for (const r of parsed as Reply[]) if (typeof r.id === 'number') byId.set(r.id, r);
    return calls.map((c, i) => {
      const r = byId.get(i);
      if (!r)
        throw new AppError('node_batch_incomplete', `json-rpc batch lacks ${c.method}`, { retryable: true });
      return r;
    });
  };
}

async function receiptsOf(
  batch: Batch,
  heights: readonly number[],
  holdsTxs: readonly boolean[] | undefined,
): Promise<(EvmReceipt[] | undefined)[]> {
  const holds = holdsTxs && ((h: number) => holdsTxs[heights.indexOf(h)] === true);
  const replies = await batch(
    'receipts',
    heights.map((h) => ({ method: 'eth_getBlockReceipts', params: ['0x' + h.toString(16)] })),
    spanOf(heights),
    // null for a block at or below the endpoint's head, or [] for one with EVM txs: pruned there
    // (docs/node-data.md §5.2).
    nullBlockRefusal(heights, holds),
  );
  return replies.map((r, i) => {
    if (r.error) {
      throw new AppError('node_rpc_error', `eth_getBlockReceipts ${heights[i]}: ${r.error.message ?? ''}`, {
        retryable: true,
      });
    }
    if (r.result === null || r.result === undefined) return undefined;
    if (!Array.isArray(r.result)) {
      throw new AppError('malformed_block', `eth_getBlockReceipts ${heights[i]}: result is not an array`);
    }
    // Every endpoint asked answered none for a block with EVM txs (its indexer behind, or each
    // pruned): fetched again later, never stored as a block without EVM txs.
    if (r.result.length === 0 && holdsTxs?.[i] === true) {
      throw new AppError(
        'node_rpc_error',
        `eth_getBlockReceipts ${heights[i]}: no receipts for a block with EVM txs (its EVM indexer lacks the block)`,
        { retryable: true },
      );
    }
    return r.result as EvmReceipt[];
  });
}

async function traceBlocks(batch: Batch, heights: readonly number[]) {
  const replies = await batch(
    'trace',
    heights.map((h) => ({
      method: 'debug_traceBlockByNumber',
      params: ['0x' + h.toString(16), { tracer: 'callTracer' }],
    })),
    spanOf(heights),
  );
  return replies.map((r, i) => {
    if (r.error?.code === METHOD_NOT_FOUND) {
      throw new AppError(
        'trace_unsupported',
        'the node does not serve debug_traceBlockByNumber: enable its debug JSON-RPC namespace, or set INTERNAL_TX=false',
      );
    }
    // A node that fails a trace (timeout, busy tracer) usually succeeds on a retry.
    if (r.error) {
      throw new AppError(
        'node_rpc_error',
        `debug_traceBlockByNumber ${heights[i]}: ${r.error.message ?? ''}`,
        {
          retryable: true,
        },
      );
    }
    const parsed = blockTraceSchema.safeParse(r.result);
    if (!parsed.success) {
      throw new AppError(
        'malformed_trace',
        `debug_traceBlockByNumber ${heights[i]}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`,
      );
    }
    return parsed.data;
  });
}

async function erc20BalancesAt(
  batch: Batch,
  pairs: readonly { token: string; account: string }[],
  height: number,
): Promise<bigint[]> {
  const block = '0x' + height.toString(16);
  const replies = await batch(
    'balance',
    pairs.map((p) => ({
      method: 'eth_call',
      params: [{ to: p.token, data: BALANCE_OF + p.account.padStart(64, '0') }, block],
    })),
    { from: height, to: height },
  );
  return replies.map((r, i) => {
    const what = `balanceOf(${pairs[i]!.account}) of ${pairs[i]!.token} at ${height}`;
    if (r.error)
      throw new AppError('node_rpc_error', `${what}: ${r.error.message ?? ''}`, { retryable: true });
    if (typeof r.result !== 'string' || !/^0x[0-9a-fA-F]*$/.test(r.result)) {
      throw new AppError('malformed_call', `${what}: not a hex word`);
    }
    // A contract that answers nothing (no balanceOf) holds nothing for the rich list.
    return r.result === '0x' ? 0n : BigInt(r.result);
  });
}

async function erc20SuppliesAt(
  batch: Batch,
  tokens: readonly string[],
  height: number,
): Promise<(bigint | undefined)[]> {
  const block = '0x' + height.toString(16);
  const replies = await batch(
    'supply',
    tokens.map((token) => ({ method: 'eth_call', params: [{ to: token, data: TOTAL_SUPPLY }, block] })),
    { from: height, to: height },
  );
  return replies.map((r, i) => {
    if (r.error?.code === REVERTED) return undefined;
    if (r.error) {
      const what = `totalSupply() of ${tokens[i]} at ${height}`;
      throw new AppError('node_rpc_error', `${what}: ${r.error.message ?? ''}`, { retryable: true });
    }
    return typeof r.result === 'string' && /^0x[0-9a-fA-F]{64}$/.test(r.result)
      ? BigInt(r.result)
      : undefined;
  });
}

export function createEvmClient(transport: Transport): EvmClient {
  const batch = batchCaller(transport);
  return {
    receiptsOf: (heights, holdsTxs) => receiptsOf(batch, heights, holdsTxs),
    traceBlocks: (heights) => traceBlocks(batch, heights),
    erc20BalancesAt: (pairs, height) => erc20BalancesAt(batch, pairs, height),
    erc20SuppliesAt: (tokens, height) => erc20SuppliesAt(batch, tokens, height),
  };
}
