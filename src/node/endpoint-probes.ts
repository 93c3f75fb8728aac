import { keccak_256 } from '@noble/hashes/sha3.js';
import { AppError } from '../shared/errors.js';

/** What one endpoint says of itself (docs/node-data.md §5.1). */
export interface EndpointIdentity {
  chainId: string;
  lowest?: number | undefined;
  highest?: number | undefined;
}

/** One request straight to the probed endpoint (no queue, no rotation). */
export type ProbeSend = (req: { method: 'GET' | 'POST'; path: string; body?: string }) => Promise<{
  status: number;
  text: string;
}>;

export type EndpointProbe = (send: ProbeSend) => Promise<EndpointIdentity>;

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('node_bad_json', `${what}: response is not JSON`, { cause: err, retryable: true });
  }
}

const heightOf = (value: unknown): number | undefined => {
  const n = Number(value);
  return typeof value === 'string' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/** CometBFT `/status`: the network and the block range the node keeps. */
export const probeRpc: EndpointProbe = async (send) => {
  const res = await send({
    method: 'POST',
    path: '/',
    body: '{"jsonrpc":"2.0","id":1,"method":"status","params":{}}',
  });
  const reply = parse(res.text, 'rpc status') as {
    result?: {
      node_info?: { network?: unknown };
      sync_info?: { earliest_block_height?: unknown; latest_block_height?: unknown };
    };
  };
  const network = reply.result?.node_info?.network;
  if (typeof network !== 'string')
    throw new AppError('malformed_status', 'rpc /status lacks node_info.network', { retryable: true });
  return {
    chainId: network,
    lowest: heightOf(reply.result?.sync_info?.earliest_block_height) ?? 1,
    highest: heightOf(reply.result?.sync_info?.latest_block_height),
  };
};

/** Cosmos REST node_info: the network only; REST says nothing of the heights it keeps. */
export const probeRest: EndpointProbe = async (send) => {
  const res = await send({ method: 'GET', path: '/cosmos/base/tendermint/v1beta1/node_info' });
  const info = parse(res.text, 'rest node_info') as { default_node_info?: { network?: unknown } };
  const network = info.default_node_info?.network;
  if (res.status !== 200 || typeof network !== 'string') {
    throw new AppError(
      'malformed_status',
      `rest node_info: HTTP ${res.status} without default_node_info.network`,
      {
        retryable: true,
      },
    );
  }
  return { chainId: network };
};

/** EVM JSON-RPC: `eth_chainId` (decimal, as `evmChainIdOf` gives it) and `eth_blockNumber` as the head. */
export const probeJsonRpc: EndpointProbe = async (send) => {
  const res = await send({
    method: 'POST',
    path: '',
    body: '[{"jsonrpc":"2.0","id":0,"method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}]',
  });
  const replies = parse(res.text, 'json-rpc eth_chainId') as { id?: unknown; result?: unknown }[];
  const result = (id: number) =>
    Array.isArray(replies) ? replies.find((r) => r.id === id)?.result : undefined;
  const chainId = result(0);
  const head = result(1);
  if (typeof chainId !== 'string' || !/^0x[0-9a-fA-F]+$/.test(chainId))
    throw new AppError('malformed_status', 'json-rpc eth_chainId answered no quantity', { retryable: true });
  return {
    chainId: BigInt(chainId).toString(),
    highest:
      typeof head === 'string' && /^0x[0-9a-fA-F]+$/.test(head) ? Number.parseInt(head, 16) : undefined,
  };
};

/**
 * The EVM chain id minievm derives from the rollup's chain id (docs/node-data.md §5.1):
 * the first 8 bytes of keccak256(chain id), big-endian, modulo 4503599627370476. Decimal.
 */
export function evmChainIdOf(chainId: string): string {
  const digest = keccak_256(new TextEncoder().encode(chainId));
  const high = Buffer.from(digest.subarray(0, 8)).readBigUInt64BE(0);
  return (high % 4503599627370476n).toString();
}

export const PROBES = { rpc: probeRpc, rest: probeRest, jsonrpc: probeJsonRpc } as const;
