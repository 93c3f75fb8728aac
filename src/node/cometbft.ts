import { AppError } from '../shared/errors.js';
import { parseBlockBundle } from './cometbft-parse.js';
import type { NodePurpose } from './metrics.js';
import { spanOf, type HeightSpan } from './endpoint-routing.js';
import type { Transport } from './transport.js';
import type { RawBlock } from './types.js';

interface JsonRpcReply {
  id?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string; data?: string };
}

/** "Not produced yet" per docs/node-data.md §1.2: a future height, or block_results saved late. */
const NOT_YET_RE = /current blockchain height \d+|could not find results for height/;
const PRUNED_RE = /is not available, lowest height is (\d+)/;

export interface CometClient {
  /** Latest height and chain id from `/status`. */
  status(): Promise<{ chainId: string; latestHeight: number; earliestHeight: number }>;
  /**
   * `/block` + `/block_results` for many heights in one JSON-RPC batch. A height the node has not
   * produced yet comes back as undefined (waiting, not an error).
   */
  fetchBlocks(heights: readonly number[], consumer?: BlockConsumer): Promise<(RawBlock | undefined)[]>;
  /**
   * gRPC queries through `abci_query` at a height, all in one JSON-RPC batch (one HTTP request):
   * each answer's protobuf value. A query the node answers with a non-zero code fails the call
   * (retryable: a height not yet queryable, a busy node).
   */
  abciQueries?(
    queries: readonly { path: string; data: Uint8Array }[],
    height: number,
    purpose: NodePurpose,
  ): Promise<Uint8Array[]>;
}

/** Who reads the blocks (node metrics): the block stream, or a stage reading them again. */
export type BlockConsumer = 'ingest' | 'rich_list';

type RpcCall = (
  body: unknown,
  purpose: NodePurpose,
  calls?: Partial<Record<NodePurpose, number>>,
  heights?: HeightSpan,
) => Promise<unknown>;

/** One JSON-RPC POST (a call or a batch) through the transport, its answer parsed. */
function rpcCaller(transport: Transport): RpcCall {
  return async (body, purpose, calls, heights) => {
    const res = await transport.request({
      method: 'POST',
      path: '/',
      body: JSON.stringify(body),
      purpose,
      ...(calls ? { calls } : {}),
      ...(heights ? { heights } : {}),
    });
    try {
      return JSON.parse(res.text);
    } catch (err) {
      throw new AppError('node_bad_json', `rpc ${res.endpoint}: response is not JSON (HTTP ${res.status})`, {
        cause: err,
        retryable: true,
      });
    }
  };
}

/** A batch's replies by id; a node may answer a whole batch with one error object (e.g. overload): retry later. */
function batchReplies(reply: unknown, what: string): Map<number, JsonRpcReply> {
  if (!Array.isArray(reply)) {
    throw new AppError('node_batch_error', `rpc ${what} failed: ${describe((reply as JsonRpcReply).error)}`, {
      retryable: true,
    });
  }
  const byId = new Map<number, JsonRpcReply>();
  for (const item of reply as JsonRpcReply[]) if (typeof item.id === 'number') byId.set(item.id, item);
  return byId;
}

async function fetchStatus(call: RpcCall): Promise<Awaited<ReturnType<CometClient['status']>>> {
  const reply = (await call(
    { jsonrpc: '2.0', id: 1, method: 'status', params: {} },
    'status',
  )) as JsonRpcReply;
  const result = unwrap(reply, 'status') as {
    node_info?: { network?: string };
    sync_info?: { latest_block_height?: string; earliest_block_height?: string };
  };
  const chainId = result.node_info?.network;
  const latest = Number(result.sync_info?.latest_block_height);
  if (typeof chainId !== 'string' || !Number.isSafeInteger(latest)) {
    throw new AppError(
      'malformed_status',
      'rpc /status lacks node_info.network or sync_info.latest_block_height',
    );
  }
  const earliest = Number(result.sync_info?.earliest_block_height ?? 1);
  return { chainId, latestHeight: latest, earliestHeight: Number.isSafeInteger(earliest) ? earliest : 1 };
}

async function fetchBlocks(
  call: RpcCall,
  heights: readonly number[],
  consumer: BlockConsumer,
): Promise<(RawBlock | undefined)[]> {
  const batch = heights.flatMap((h, i) => [
    { jsonrpc: '2.0', id: 2 * i, method: 'block', params: { height: String(h) } },
    { jsonrpc: '2.0', id: 2 * i + 1, method: 'block_results', params: { height: String(h) } },
  ]);
  const [block, results] =
    consumer === 'ingest'
      ? (['block', 'block_results'] as const)
      : (['rich_list_block', 'rich_list_block_results'] as const);
  const byId = batchReplies(
    await call(batch, block, { [block]: heights.length, [results]: heights.length }, spanOf(heights)),
    'batch',
  );
  return heights.map((height, i) => {
    const blockReply = byId.get(2 * i);
    const resultsReply = byId.get(2 * i + 1);
    if (!blockReply || !resultsReply) {
      throw new AppError('node_batch_incomplete', `rpc batch reply lacks height ${height}`, {
        retryable: true,
      });
    }
    if (isNotYet(blockReply) || isNotYet(resultsReply)) return undefined;
    return parseBlockBundle(
      height,
      unwrap(blockReply, `block ${height}`),
      unwrap(resultsReply, `block_results ${height}`),
    );
  });
}

async function abciQueries(
  call: RpcCall,
  queries: readonly { path: string; data: Uint8Array }[],
  height: number,
  purpose: NodePurpose,
): Promise<Uint8Array[]> {
  if (queries.length === 0) return [];
  const batch = queries.map((q, id) => ({
    jsonrpc: '2.0',
    id,
    method: 'abci_query',
    params: {
      path: q.path,
      data: Buffer.from(q.data).toString('hex'),
      height: String(height),
      prove: false,
    },
  }));
  const byId = batchReplies(
    await call(batch, purpose, { [purpose]: queries.length }, { from: height, to: height }),
    'abci_query batch',
  );
  return queries.map((q, i) => {
    const item = byId.get(i);
    const what = `abci_query ${q.path} at ${height}`;
    if (!item)
      throw new AppError('node_batch_incomplete', `rpc batch reply lacks ${what}`, { retryable: true });
    const response = (unwrap(item, what) as AbciQueryResult).response ?? {};
    if (response.code) {
      throw new AppError('node_abci_error', `rpc ${what}: code ${response.code}: ${response.log ?? ''}`, {
        retryable: true,
      });
    }
    return Buffer.from(response.value ?? '', 'base64');
  });
}

export function createCometClient(transport: Transport): CometClient {
  const call = rpcCaller(transport);
  return {
    status: () => fetchStatus(call),
    fetchBlocks: (heights, consumer = 'ingest') => fetchBlocks(call, heights, consumer),
    abciQueries: (queries, height, purpose) => abciQueries(call, queries, height, purpose),
  };
}

interface AbciQueryResult {
  response?: { code?: number; log?: string; value?: string | null };
}

function isNotYet(reply: JsonRpcReply): boolean {
  return reply.error !== undefined && NOT_YET_RE.test(reply.error.data ?? '');
}

function unwrap(reply: JsonRpcReply, what: string): unknown {
  if (reply.error) {
    const data = reply.error.data ?? '';
    const pruned = PRUNED_RE.exec(data);
    if (pruned) {
      throw new AppError('height_pruned', `rpc ${what}: ${data}; set START_HEIGHT to ${pruned[1]} or later`, {
        details: { lowestHeight: Number(pruned[1]) },
      });
    }
    throw new AppError('node_rpc_error', `rpc ${what}: ${describe(reply.error)}`, { retryable: true });
  }
  if (reply.result === undefined) {
    throw new AppError('node_rpc_error', `rpc ${what}: reply has neither result nor error`, {
      retryable: true,
    });
  }
  return reply.result;
}

function describe(error: JsonRpcReply['error']): string {
  if (!error) return 'unknown error';
  return [error.message, error.data].filter(Boolean).join(': ');
}
