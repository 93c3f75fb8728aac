import { createTransport, type TransportResponse } from '../../node/transport.js';
import { AppError } from '../../shared/errors.js';
import type { TxResult } from '../types.js';

/** Minimal Cosmos REST (gRPC-gateway) client for the endpoints the VIP tool needs. */
export interface CosmosRest {
  account(address: string): Promise<{ accountNumber: bigint; sequence: bigint } | undefined>;
  simulate(txBytes: Uint8Array): Promise<{ gasUsed: bigint; log: string }>;
  broadcastSync(
    txBytes: Uint8Array,
  ): Promise<{ code: number; txhash: string; log: string; codespace: string }>;
  tx(hash: string): Promise<TxResult | undefined>;
  get(path: string): Promise<{ status: number; body: unknown }>;
  post(path: string, body: unknown): Promise<{ status: number; body: unknown }>;
}

export interface RestOptions {
  baseUrl: string;
  timeoutMs: number;
}

/** Quotes integers of 16+ digits so JSON.parse keeps them exact (Wasm answers u64 as numbers). */
export function parseJsonBigSafe(text: string): unknown {
  return JSON.parse(text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

/** Requests in flight at once: the tool sends one tx at a time and polls for it. */
const MAX_CONCURRENT_REQUESTS = 4;

/** A JSON body (big integers kept exact), or the text itself when it is not JSON. */
function parseJsonOrText(text: string): unknown {
  try {
    return parseJsonBigSafe(text);
  } catch {
    return text;
  }
}

export function createCosmosRest(options: RestOptions): CosmosRest {
  const request = restRequester(options);
  const get: RestGet = (path) => request('GET', path);
  const post: RestPost = (path, body) => request('POST', path, body);
  return {
    get,
    post,
    account: (address) => readAccount(get, address),
    simulate: (txBytes) => simulateTx(post, txBytes),
    broadcastSync: (txBytes) => broadcastTxSync(post, txBytes),
    tx: (hash) => readTx(get, hash),
  };
}

type RestAnswer = { status: number; body: unknown };
type RestGet = (path: string) => Promise<RestAnswer>;
type RestPost = (path: string, body: unknown) => Promise<RestAnswer>;

/** Requests through the node transport: JSON bodies parsed (big integers kept exact), 5xx faults typed. */
function restRequester(options: RestOptions) {
  const transport = createTransport({
    name: 'REST',
    endpoints: [options.baseUrl],
    timeoutMs: options.timeoutMs,
    maxConcurrent: MAX_CONCURRENT_REQUESTS,
  });
  return async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<RestAnswer> => {
    let res: TransportResponse;
    try {
      res = await transport.request({
        method,
        path,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (err) {
      throw new AppError('node_unreachable', `${method} ${path}: ${(err as Error).message}`, {
        retryable: true,
        cause: err,
      });
    }
    const parsed = parseJsonOrText(res.text);
    // gRPC-gateway maps contract/VM errors to 5xx with a JSON {code, message}: that is an answer.
    const isGatewayError = typeof parsed === 'object' && parsed !== null && 'message' in parsed;
    if (res.status >= 500 && !isGatewayError) {
      throw new AppError('node_error', `${method} ${path}: HTTP ${res.status} ${res.text.slice(0, 200)}`, {
        retryable: true,
      });
    }
    return { status: res.status, body: parsed };
  };
}

async function readAccount(get: RestGet, address: string) {
  const { status, body } = await get(`/cosmos/auth/v1beta1/accounts/${address}`);
  if (status === 404) return undefined;
  const acc = (body as { account?: { account_number?: string; sequence?: string } }).account;
  if (status !== 200 || !acc) throw new AppError('bad_response', `account ${address}: HTTP ${status}`);
  return { accountNumber: BigInt(acc.account_number ?? '0'), sequence: BigInt(acc.sequence ?? '0') };
}

async function simulateTx(post: RestPost, txBytes: Uint8Array) {
  const { status, body } = await post('/cosmos/tx/v1beta1/simulate', {
    tx_bytes: Buffer.from(txBytes).toString('base64'),
  });
  const b = body as {
    gas_info?: { gas_used?: string };
    result?: { log?: string };
    message?: string;
    code?: number;
  };
  if (status !== 200 || !b.gas_info) {
    throw new AppError('simulate_failed', b.message ?? `simulate: HTTP ${status}`, {
      details: { chainCode: b.code, log: b.message },
    });
  }
  return { gasUsed: BigInt(b.gas_info.gas_used ?? '0'), log: b.result?.log ?? '' };
}

async function broadcastTxSync(post: RestPost, txBytes: Uint8Array) {
  const { status, body } = await post('/cosmos/tx/v1beta1/txs', {
    tx_bytes: Buffer.from(txBytes).toString('base64'),
    mode: 'BROADCAST_MODE_SYNC',
  });
  const r = (
    body as { tx_response?: { code?: number; txhash?: string; raw_log?: string; codespace?: string } }
  ).tx_response;
  if (status !== 200 || !r)
    throw new AppError('bad_response', `broadcast: HTTP ${status}`, { retryable: true });
  return {
    code: r.code ?? 0,
    txhash: r.txhash ?? '',
    log: r.raw_log ?? '',
    codespace: r.codespace ?? '',
  };
}

async function readTx(get: RestGet, hash: string): Promise<TxResult | undefined> {
  const { status, body } = await get(`/cosmos/tx/v1beta1/txs/${hash}`);
  if (status === 404 || status === 400) return undefined;
  const r = (body as { tx_response?: RestTxResponse }).tx_response;
  if (status !== 200 || !r) return undefined;
  return txResultFromRest(r);
}

interface RestTxResponse {
  txhash: string;
  height: string;
  code: number;
  raw_log: string;
  gas_used: string;
  events?: { type: string; attributes: { key: string; value: string }[] }[];
}

function txResultFromRest(r: RestTxResponse): TxResult {
  const attr = (type: string, key: string) =>
    r.events?.find((e) => e.type === type)?.attributes.find((a) => a.key === key)?.value;
  const codeId = attr('store_code', 'code_id');
  const contract = attr('instantiate', '_contract_address');
  return {
    hash: r.txhash,
    height: Number(r.height),
    success: r.code === 0,
    code: r.code,
    log: r.raw_log,
    gasUsed: BigInt(r.gas_used || '0'),
    ...(codeId === undefined ? {} : { codeId: BigInt(codeId) }),
    ...(contract === undefined ? {} : { contractAddress: contract }),
  };
}
