import { AppError } from '../shared/errors.js';
import type { NodePurpose } from './metrics.js';
import type { Transport } from './transport.js';

export interface RestTx {
  body: unknown;
  auth_info: unknown;
  signatures: string[];
}

export interface RestClient {
  /**
   * GET a JSON document; 404 answers undefined. `height` sets `x-cosmos-block-height`; `purpose`
   * labels the request in the node metrics.
   */
  getJson(path: string, options?: RestOptions): Promise<unknown>;
  /** POST a JSON body and read a JSON answer (minievm call); same errors as getJson. */
  postJson(path: string, body: unknown, options?: RestOptions): Promise<unknown>;
  /** Every REST tx of a block, paging until `expected` txs arrived (docs/node-data.md §1.3). */
  txsOfBlock(height: number, expected: number): Promise<RestTx[]>;
  /** Moniker of an opchild validator, undefined when the node does not know it. */
  validatorMoniker(operatorAddress: string): Promise<string | undefined>;
}

export interface RestOptions {
  height?: number;
  /** The height the request reads when it is not sent as a header: routes it (docs/node-data.md §5.2). */
  routeHeight?: number;
  purpose?: NodePurpose;
}

const PAGE_LIMIT = 100;

/**
 * A non-200 REST answer as the node wrote it: gRPC-gateway's `{"code","message","details"}`, or
 * the ABCI-style `{"code","codespace","log"}` some proxies pass on. Fields the body lacks stay unset.
 */
export interface RestErrorAnswer {
  status: number;
  /** gRPC status code (gateway body) or SDK code (ABCI-style body). */
  code?: number;
  codespace?: string;
  /** `message` or `log`; the raw body text when it is not JSON. */
  message: string;
}

function parseErrorAnswer(status: number, text: string): RestErrorAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { status, message: text };
  }
  const b = (body ?? {}) as { code?: unknown; codespace?: unknown; message?: unknown; log?: unknown };
  const message = typeof b.message === 'string' ? b.message : typeof b.log === 'string' ? b.log : text;
  return {
    status,
    message,
    ...(typeof b.code === 'number' ? { code: b.code } : {}),
    ...(typeof b.codespace === 'string' ? { codespace: b.codespace } : {}),
  };
}

/** The node's answer carried by a `node_rest_error` (undefined for transport failures). */
export function restErrorAnswer(err: unknown): RestErrorAnswer | undefined {
  if (!(err instanceof AppError) || err.code !== 'node_rest_error') return undefined;
  const answer = err.details.answer as RestErrorAnswer | undefined;
  return answer && typeof answer.status === 'number' ? answer : undefined;
}

/**
 * The node's tx decoder refused the block's txs: its release does not know a message type
 * (`unable to resolve type URL /x.y.MsgZ: tx parse error`, with gRPC code 2, 3 or 13 depending on
 * the SDK version, docs/node-data.md §1.3). Deterministic: asking again gives the same answer.
 */
export function restCannotRenderTxs(err: unknown): boolean {
  const answer = restErrorAnswer(err);
  return answer !== undefined && /unable to resolve type URL|tx parse error/.test(answer.message);
}

export function createRestClient(transport: Transport): RestClient {
  async function getJson(path: string, options: RestOptions = {}): Promise<unknown> {
    return requestJson('GET', path, undefined, options);
  }

  async function requestJson(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    options: RestOptions,
  ): Promise<unknown> {
    const headers: Record<string, string> = {};
    const routeHeight = options.routeHeight ?? options.height;
    if (options.height !== undefined) headers['x-cosmos-block-height'] = String(options.height);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await transport.request({
      method,
      path,
      purpose: options.purpose ?? 'other',
      ...(routeHeight !== undefined ? { heights: { from: routeHeight, to: routeHeight } } : {}),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    });
    if (res.status === 404) return undefined;
    if (res.status !== 200) {
      // gRPC-gateway errors for a height not yet committed are transient; so is everything 5xx.
      // The whole answer is kept (the message only holds its start) so callers that can tell a
      // deterministic answer from node trouble (restErrorAnswer) read all of it.
      throw new AppError('node_rest_error', `rest ${path}: HTTP ${res.status} ${res.text.slice(0, 200)}`, {
        retryable: res.status >= 500 || res.status === 400,
        details: { answer: parseErrorAnswer(res.status, res.text), surface: 'rest' },
      });
    }
    try {
      return JSON.parse(res.text);
    } catch (err) {
      throw new AppError('node_bad_json', `rest ${path}: response is not JSON`, {
        cause: err,
        retryable: true,
      });
    }
  }

  return {
    getJson,
    postJson: (path, body, options = {}) => requestJson('POST', path, body, options),
    async txsOfBlock(height, expected) {
      const txs: RestTx[] = [];
      let nextKey: string | undefined;
      while (txs.length < expected) {
        // Page by key when the node hands one out; otherwise by offset (some nodes send next_key null early).
        const query = nextKey
          ? `pagination.key=${encodeURIComponent(nextKey)}`
          : `pagination.offset=${txs.length}`;
        const page = (await getJson(
          `/cosmos/tx/v1beta1/txs/block/${height}?pagination.limit=${PAGE_LIMIT}&${query}`,
          // Not sent as x-cosmos-block-height (the path names the block); it routes the request.
          { purpose: 'tx_fallback', routeHeight: height },
        )) as { txs?: RestTx[]; pagination?: { next_key?: string | null } } | undefined;
        const got = page?.txs ?? [];
        if (got.length === 0) {
          throw new AppError(
            'node_rest_short',
            `rest txs of block ${height}: ${txs.length} of ${expected} txs`,
            {
              retryable: true,
            },
          );
        }
        txs.push(...got);
        nextKey = page?.pagination?.next_key ?? undefined;
      }
      return txs.slice(0, expected);
    },
    async validatorMoniker(operatorAddress) {
      const res = (await getJson(`/opinit/opchild/v1/validator/${operatorAddress}`, {
        purpose: 'validator',
      })) as { validator?: { moniker?: unknown } } | undefined;
      const moniker = res?.validator?.moniker;
      return typeof moniker === 'string' ? moniker : undefined;
    },
  };
}
