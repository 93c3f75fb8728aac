import { AppError, errorMessage, isRetryable } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { RestClient } from './rest.js';
import { INGEST_RETRY, withRetry, type RetryPolicy } from './retry.js';

/**
 * The node state NFT collection needs (indexer.md §7.1–7.3), read at a block height through the
 * REST surface (same transport: retry, rotation, concurrency cap). Retryable failures are retried
 * a bounded number of times; then the look-up fails for good with an error naming the height and
 * the object, which stops ingest (nothing past the checkpoint is written, the next start resumes).
 * Immutable facts (collection names and creators) are cached in bounded maps.
 */
export interface NftLookups {
  /** Move `0x1::nft::Nft` of an object; undefined when the object holds none at that height. */
  moveNft(
    object: string,
    height: number,
  ): Promise<{ collection: string; tokenId: string; uri: string } | undefined>;
  /** Move `0x1::collection::Collection`; undefined when absent. */
  moveCollection(addr: string, height: number): Promise<{ name: string; creator: string } | undefined>;
  /**
   * cw721/sg721 `contract_info` name and the contract's instantiator; undefined when the contract
   * says it does not speak the cw721 query (indexer.md §7.3 blacklist). A contract whose name
   * cannot be read otherwise (404, or an answer without `name`) gives name "": the reference stores
   * whatever name the answer holds, and skipping it would drop tokens a careful reader can see.
   */
  wasmCollection(contract: string, height: number): Promise<{ name: string; creator: string } | undefined>;
  /**
   * cw721 `nft_info` token_uri, for mints whose event carries no `token_uri` (cw721-base emits
   * none); "" when the token is gone at that height or the contract has no such query.
   */
  wasmTokenUri(contract: string, tokenId: string, height: number): Promise<string>;
  /** ERC721 `name()`; undefined when it reverts (not an NFT with metadata). */
  evmName(contract: string, height: number): Promise<string | undefined>;
  /** ERC721 `tokenURI(id)`; "" when it reverts. */
  evmTokenUri(contract: string, tokenId: string, height: number): Promise<string>;
}

export interface NftLookupOptions {
  rest: RestClient;
  logger?: Logger;
  signal?: AbortSignal;
  /** Attempts per look-up before giving up (default 10, about half a minute of backoff). */
  policy?: RetryPolicy;
  /** Bound of each cache (default 10,000 entries). */
  cacheSize?: number;
}

const DEFAULT_POLICY: RetryPolicy = { ...INGEST_RETRY, maxAttempts: 10 };
const WASM_NOT_CW721 = /Error parsing into type [^:]+::msg::QueryMsg: unknown variant/;
/** The contract's own "no such token" (burnt in the same block) or "no such query" answers. */
const WASM_NO_TOKEN_URI = /not found: query wasm contract failed|unknown variant/;
const NAME_SELECTOR = '0x06fdde03';
const TOKEN_URI_SELECTOR = '0xc87b56dd';

export function createNftLookups(options: NftLookupOptions): NftLookups {
  const { rest } = options;
  const policy = options.policy ?? DEFAULT_POLICY;
  const cached = boundedPromiseCache(options.cacheSize ?? 10_000);

  async function lookup<T>(what: string, height: number, fn: () => Promise<T>): Promise<T> {
    try {
      return await withRetry(fn, {
        policy,
        what: `${what} at height ${height}`,
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw new AppError(
        'nft_lookup_failed',
        `height ${height}: NFT look-up of ${what} failed${isRetryable(err) ? ` after ${policy.maxAttempts} attempts` : ''}: ${errorMessage(err)}; ingest stops here and resumes from the checkpoint on the next start`,
        { cause: err },
      );
    }
  }

  async function resource(
    addr: string,
    tag: string,
    height: number,
  ): Promise<Record<string, unknown> | undefined> {
    const path = `/initia/move/v1/accounts/${addr}/resources/by_struct_tag?struct_tag=${encodeURIComponent(tag)}`;
    const res = (await rest.getJson(path, { height })) as
      { resource?: { move_resource?: unknown } } | undefined;
    const text = res?.resource?.move_resource;
    if (typeof text !== 'string') return undefined;
    const parsed = JSON.parse(text) as { data?: Record<string, unknown> };
    return parsed.data;
  }

  async function evmCall(contract: string, input: string, height: number): Promise<string | undefined> {
    const res = (await rest.postJson(
      '/minievm/evm/v1/call',
      { sender: '0x' + '0'.repeat(40), contract_addr: contract, input, value: '0' },
      { height },
    )) as { response?: unknown; error?: unknown } | undefined;
    if (res === undefined) throw new AppError('node_rest_error', `minievm call ${contract}: not found`);
    if (typeof res.error === 'string' && res.error.includes('Reverted')) return undefined;
    if (typeof res.error === 'string' && res.error !== '')
      throw new AppError('node_rest_error', `minievm call ${contract}: ${res.error}`, { retryable: true });
    return typeof res.response === 'string' ? res.response : '0x';
  }

  return {
    moveNft: (object, height) =>
      lookup(`0x1::nft::Nft of ${object}`, height, async () => {
        const data = await resource(object, '0x1::nft::Nft', height);
        if (!data) return undefined;
        const inner = (data.collection as { inner?: unknown } | undefined)?.inner;
        return {
          collection: String(inner ?? ''),
          tokenId: String(data.token_id ?? ''),
          uri: String(data.uri ?? ''),
        };
      }),
    moveCollection: (addr, height) =>
      cached(`move-collection:${addr}`, () =>
        lookup(`0x1::collection::Collection of ${addr}`, height, async () => {
          const data = await resource(addr, '0x1::collection::Collection', height);
          return data ? { name: String(data.name ?? ''), creator: String(data.creator ?? '') } : undefined;
        }),
      ),
    wasmCollection: (contract, height) =>
      cached(`wasm-collection:${contract}`, () =>
        lookup(`contract_info of ${contract}`, height, async () => {
          const query = Buffer.from('{"contract_info":{}}').toString('base64url');
          let info: { data?: { name?: unknown } } | undefined;
          try {
            info = (await rest.getJson(`/cosmwasm/wasm/v1/contract/${contract}/smart/${query}`, {
              height,
            })) as { data?: { name?: unknown } } | undefined;
          } catch (err) {
            if (WASM_NOT_CW721.test(errorMessage(err))) return undefined;
            throw err;
          }
          const contractInfo = (await rest.getJson(`/cosmwasm/wasm/v1/contract/${contract}`, { height })) as
            { contract_info?: { creator?: unknown } } | undefined;
          const creator = String(contractInfo?.contract_info?.creator ?? '');
          if (typeof info?.data?.name === 'string') return { name: info.data.name, creator };
          // It emitted cw721 events but its name cannot be read (no answer, or no name in it):
          // its tokens are still indexed, under a collection named "" (see wasmCollection).
          options.logger?.warn({ contract, height }, 'cw721 contract_info has no readable name');
          return { name: '', creator };
        }),
      ),
    wasmTokenUri: (contract, tokenId, height) =>
      lookup(`nft_info(${tokenId}) of ${contract}`, height, async () => {
        const query = Buffer.from(JSON.stringify({ nft_info: { token_id: tokenId } })).toString('base64url');
        try {
          const res = (await rest.getJson(`/cosmwasm/wasm/v1/contract/${contract}/smart/${query}`, {
            height,
          })) as { data?: { token_uri?: unknown } } | undefined;
          return typeof res?.data?.token_uri === 'string' ? res.data.token_uri : '';
        } catch (err) {
          if (WASM_NO_TOKEN_URI.test(errorMessage(err))) return '';
          throw err;
        }
      }),
    evmName: (contract, height) =>
      cached(`evm-name:${contract}`, () =>
        lookup(`name() of ${contract}`, height, async () => {
          const out = await evmCall(contract, NAME_SELECTOR, height);
          return out === undefined ? undefined : decodeAbiString(out);
        }),
      ),
    evmTokenUri: (contract, tokenId, height) =>
      lookup(`tokenURI(${tokenId}) of ${contract}`, height, async () => {
        const input = TOKEN_URI_SELECTOR + BigInt(tokenId).toString(16).padStart(64, '0');
        const out = await evmCall(contract, input, height);
        return out === undefined ? '' : decodeAbiString(out);
      }),
  };
}

/** An ABI-encoded `string` return value (offset, length, bytes); "" for an empty answer. */
export function decodeAbiString(hex: string): string {
  const bytes = Buffer.from(hex.replace(/^0x/, ''), 'hex');
  if (bytes.length < 64) return '';
  const offset = Number(bytes.readBigUInt64BE(24));
  const length = Number(bytes.readBigUInt64BE(offset + 24));
  return bytes.subarray(offset + 32, offset + 32 + length).toString('utf8');
}

/**
 * Memoises look-ups whose answer never changes, sharing one promise between concurrent callers;
 * failures are not kept. Cleared when full (a chain has few collections; the bound is a safety net).
 */
function boundedPromiseCache(limit: number) {
  const map = new Map<string, Promise<unknown>>();
  return <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const hit = map.get(key);
    if (hit) return hit as Promise<T>;
    if (map.size >= limit) map.clear();
    const p = fn();
    map.set(key, p);
    p.catch(() => map.delete(key));
    return p;
  };
}
