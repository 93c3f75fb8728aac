import { AppError, errorMessage, isRetryable } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { restErrorAnswer, type RestClient } from './rest.js';
import { INGEST_RETRY, withRetry, type RetryPolicy } from './retry.js';

/**
 * The node state NFT collection needs (docs/ingest.md §7.1–7.3), read at a block height through the
 * REST surface (same transport: retry, rotation, concurrency cap). Two kinds of failure:
 * - a deterministic answer about the contract (a Wasm contract rejecting the query, an EVM call
 *   reverting, an ABI answer that does not decode) is decided once: the same query at the same
 *   height answers the same, so retrying it would only stall ingest on a height forever;
 * - node trouble (network, timeouts, 429, 5xx without a contract answer) is retried a bounded
 *   number of times; then the look-up fails with a retryable error naming the height and the
 *   object, and the block stream fetches that chunk again, waiting for the node for as long as it
 *   takes (docs/ingest.md §10): nothing past the checkpoint is written meanwhile.
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
   * rejects the query (docs/ingest.md §7.3 blacklist: any contract-side query error, not only the
   * reference's `<crate>::msg::QueryMsg: unknown variant`). A contract whose name cannot be read
   * otherwise (404, or an answer without `name`) gives name "": the reference stores whatever name
   * the answer holds, and skipping it would drop tokens a careful reader can see.
   */
  wasmCollection(contract: string, height: number): Promise<{ name: string; creator: string } | undefined>;
  /**
   * cw721 `nft_info` token_uri, for mints whose event carries no `token_uri` (cw721-base emits
   * none); "" when the token is gone at that height or the contract has no such query.
   */
  wasmTokenUri(contract: string, tokenId: string, height: number): Promise<string>;
  /**
   * ERC721 `name()`; "" when it reverts or its answer is not an ABI string. ERC721's metadata
   * extension is optional (docs/ingest.md §7.2 counts such contracts too), so an unreadable name is a collection
   * named "" — as on Wasm — rather than a reason to drop its tokens.
   */
  evmName(contract: string, height: number): Promise<string>;
  /** ERC721 `tokenURI(id)`; "" when it reverts or its answer is not an ABI string. */
  evmTokenUri(contract: string, tokenId: string, height: number): Promise<string>;
}

export interface NftOwnerLookups {
  /**
   * A token's owner at a height as the node says it (`verify`, docs/ingest.md §11.1), in the
   * VM's text form; undefined when the token does not exist there (burnt, never minted): Move the
   * object's `0x1::object::ObjectCore` owner, Wasm cw721 `owner_of`, EVM ERC-721 `ownerOf(id)`
   * (a revert, or an answer that is no address word, is no token). Never cached.
   */
  moveOwner(object: string, height: number): Promise<string | undefined>;
  wasmOwner(contract: string, tokenId: string, height: number): Promise<string | undefined>;
  evmOwner(contract: string, tokenId: string, height: number): Promise<string | undefined>;
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

/** Attempts of one look-up before the block stream takes over the wait (about half a minute). */
export const NFT_LOOKUP_ATTEMPTS = 10;
const DEFAULT_POLICY: RetryPolicy = { ...INGEST_RETRY, maxAttempts: NFT_LOOKUP_ATTEMPTS };
/**
 * wasmd wraps every error a contract's query entry point returns (JSON parse errors such as
 * `<crate>::QueryMsg: unknown variant`, "not found", StdError) in ErrQueryFailed — codespace
 * `wasm`, code 9, text "query wasm contract failed" — which the gateway answers as HTTP 500,
 * gRPC code 2. Code 2 says nothing more, so the text is the only signal there.
 */
const WASM_CONTRACT_ERROR = /query wasm contract failed|Error parsing into type|unknown variant/;
const WASM_CODESPACE = 'wasm';
const WASM_QUERY_FAILED_CODE = 9;
/** minievm answers an EVM-level failure of a call as `Reverted…` (in the body, or as an error answer). */
const EVM_REVERTED = /\bReverted\b|execution reverted/;
const NAME_SELECTOR = '0x06fdde03';
const TOKEN_URI_SELECTOR = '0xc87b56dd';
const OWNER_OF_SELECTOR = '0x6352211e';

/**
 * True when the node answered that the contract itself failed the query: an HTTP 4xx/500 answer
 * (not 429, not a bare 5xx — the transport turns those into retryable errors without an answer)
 * whose body is wasmd's ErrQueryFailed.
 */
export function isWasmContractError(err: unknown): boolean {
  const a = restErrorAnswer(err);
  if (!a || a.status < 400 || a.status > 500 || a.status === 429) return false;
  if (a.codespace === WASM_CODESPACE && a.code !== undefined) return a.code === WASM_QUERY_FAILED_CODE;
  return WASM_CONTRACT_ERROR.test(a.message);
}

/** True when a minievm call failed inside the EVM (an answer about the contract, not node trouble). */
function isEvmRevertAnswer(err: unknown): boolean {
  const a = restErrorAnswer(err);
  return (
    a !== undefined && a.status >= 400 && a.status <= 500 && a.status !== 429 && EVM_REVERTED.test(a.message)
  );
}

type Lookup = <T>(what: string, height: number, fn: () => Promise<T>, cacheKey?: string) => Promise<T>;

/**
 * A look-up at `height`, retried; a lasting failure names this caller's height. Cached look-ups
 * share one request between blocks, so the name comes from the caller, not from the request:
 * the error must name the height where ingest stops.
 */
function createLookup(options: NftLookupOptions): Lookup {
  const policy = options.policy ?? DEFAULT_POLICY;
  const cached = boundedPromiseCache(options.cacheSize ?? 10_000);
  const retried = <T>(what: string, height: number, fn: () => Promise<T>): Promise<T> =>
    withRetry(fn, {
      policy,
      what: `${what} at height ${height}`,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  return async (what, height, fn, cacheKey) => {
    try {
      return cacheKey === undefined
        ? await retried(what, height, fn)
        : await cached(cacheKey, () => retried(what, height, fn));
    } catch (err) {
      if (options.signal?.aborted) throw err;
      const retryable = isRetryable(err);
      throw new AppError(
        'nft_lookup_failed',
        `height ${height}: NFT look-up of ${what} failed${retryable ? ` after ${policy.maxAttempts} attempts` : ''}: ${errorMessage(err)}; ${retryable ? 'the block stream waits for the node and tries this height again' : 'ingest stops here and resumes from the checkpoint on the next start'}`,
        { cause: err, retryable, details: { surface: 'rest' } },
      );
    }
  };
}

function unreadable(logger: Logger | undefined, what: string, contract: string, height: number): string {
  logger?.warn({ contract, height }, `${what} cannot be read (reverts or is no ABI string); stored as ""`);
  return '';
}

async function moveNftOf(rest: RestClient, object: string, height: number) {
  const data = await resource(rest, object, '0x1::nft::Nft', height);
  if (!data) return undefined;
  const inner = (data.collection as { inner?: unknown } | undefined)?.inner;
  return {
    collection: String(inner ?? ''),
    tokenId: String(data.token_id ?? ''),
    uri: String(data.uri ?? ''),
  };
}

async function wasmTokenUriOf(
  rest: RestClient,
  contract: string,
  tokenId: string,
  height: number,
): Promise<string> {
  const query = Buffer.from(JSON.stringify({ nft_info: { token_id: tokenId } })).toString('base64url');
  try {
    const res = (await rest.getJson(`/cosmwasm/wasm/v1/contract/${contract}/smart/${query}`, {
      height,
      purpose: 'nft_lookup',
    })) as { data?: { token_uri?: unknown } } | undefined;
    return typeof res?.data?.token_uri === 'string' ? res.data.token_uri : '';
  } catch (err) {
    // The contract's own "no such token" (burnt later in the block) or "no such query".
    if (isWasmContractError(err)) return '';
    throw err;
  }
}

export function createNftLookups(options: NftLookupOptions): NftLookups {
  const { rest, logger } = options;
  const lookup = createLookup(options);
  return {
    moveNft: (object, height) =>
      lookup(`0x1::nft::Nft of ${object}`, height, () => moveNftOf(rest, object, height)),
    moveCollection: (addr, height) =>
      lookup(
        `0x1::collection::Collection of ${addr}`,
        height,
        async () => {
          const data = await resource(rest, addr, '0x1::collection::Collection', height);
          return data ? { name: String(data.name ?? ''), creator: String(data.creator ?? '') } : undefined;
        },
        `move-collection:${addr}`,
      ),
    wasmCollection: (contract, height) =>
      lookup(
        `contract_info of ${contract}`,
        height,
        () => readWasmCollection(rest, logger, contract, height),
        `wasm-collection:${contract}`,
      ),
    wasmTokenUri: (contract, tokenId, height) =>
      lookup(`nft_info(${tokenId}) of ${contract}`, height, () =>
        wasmTokenUriOf(rest, contract, tokenId, height),
      ),
    evmName: (contract, height) =>
      lookup(
        `name() of ${contract}`,
        height,
        async () =>
          (await evmCallString(rest, contract, NAME_SELECTOR, height)) ??
          unreadable(logger, 'ERC721 name()', contract, height),
        `evm-name:${contract}`,
      ),
    evmTokenUri: (contract, tokenId, height) =>
      lookup(`tokenURI(${tokenId}) of ${contract}`, height, async () => {
        const input = TOKEN_URI_SELECTOR + BigInt(tokenId).toString(16).padStart(64, '0');
        const uri = await evmCallString(rest, contract, input, height);
        return uri ?? unreadable(logger, `ERC721 tokenURI(${tokenId})`, contract, height);
      }),
  };
}

/** The same look-ups' retry and failure rules (none is cached: an owner changes). */
export function createNftOwnerLookups(options: NftLookupOptions): NftOwnerLookups {
  const { rest } = options;
  const lookup = createLookup(options);
  return {
    moveOwner: (object, height) =>
      lookup(`0x1::object::ObjectCore of ${object}`, height, async () => {
        const data = await resource(rest, object, '0x1::object::ObjectCore', height);
        return typeof data?.owner === 'string' ? data.owner : undefined;
      }),
    wasmOwner: (contract, tokenId, height) =>
      lookup(`owner_of(${tokenId}) of ${contract}`, height, async () => {
        const res = await wasmSmart(rest, contract, { owner_of: { token_id: tokenId } }, height);
        const owner = (res as { data?: { owner?: unknown } } | undefined)?.data?.owner;
        return typeof owner === 'string' ? owner : undefined;
      }),
    evmOwner: (contract, tokenId, height) =>
      lookup(`ownerOf(${tokenId}) of ${contract}`, height, async () => {
        const input = OWNER_OF_SELECTOR + BigInt(tokenId).toString(16).padStart(64, '0');
        const word = (await evmCall(rest, contract, input, height))?.replace(/^0x/, '');
        return word !== undefined && /^[0-9a-fA-F]{64}$/.test(word)
          ? `0x${word.slice(24).toLowerCase()}`
          : undefined;
      }),
  };
}

/** A cw721 smart query's answer; undefined when the contract rejects it (no such token or query). */
async function wasmSmart(rest: RestClient, contract: string, msg: unknown, height: number): Promise<unknown> {
  const query = Buffer.from(JSON.stringify(msg)).toString('base64url');
  try {
    return await rest.getJson(`/cosmwasm/wasm/v1/contract/${contract}/smart/${query}`, {
      height,
      purpose: 'nft_lookup',
    });
  } catch (err) {
    if (isWasmContractError(err)) return undefined;
    throw err;
  }
}

/** A Move resource's `data` at a height; undefined when the object holds none. */
async function resource(
  rest: RestClient,
  addr: string,
  tag: string,
  height: number,
): Promise<Record<string, unknown> | undefined> {
  const path = `/initia/move/v1/accounts/${addr}/resources/by_struct_tag?struct_tag=${encodeURIComponent(tag)}`;
  const res = (await rest.getJson(path, { height, purpose: 'nft_lookup' })) as
    { resource?: { move_resource?: unknown } } | undefined;
  const text = res?.resource?.move_resource;
  if (typeof text !== 'string') return undefined;
  const parsed = JSON.parse(text) as { data?: Record<string, unknown> };
  return parsed.data;
}

/** An ABI string returned by a minievm call; undefined when the call reverts or the answer is no ABI string. */
async function evmCallString(
  rest: RestClient,
  contract: string,
  input: string,
  height: number,
): Promise<string | undefined> {
  const response = await evmCall(rest, contract, input, height);
  return response === undefined ? undefined : decodeAbiString(response);
}

/** A minievm call's hex answer; undefined when the call reverts. */
async function evmCall(
  rest: RestClient,
  contract: string,
  input: string,
  height: number,
): Promise<string | undefined> {
  let res: { response?: unknown; error?: unknown } | undefined;
  try {
    res = (await rest.postJson(
      '/minievm/evm/v1/call',
      { sender: '0x' + '0'.repeat(40), contract_addr: contract, input, value: '0' },
      { height, purpose: 'nft_lookup' },
    )) as typeof res;
  } catch (err) {
    if (isEvmRevertAnswer(err)) return undefined;
    throw err;
  }
  if (res === undefined) throw new AppError('node_rest_error', `minievm call ${contract}: not found`);
  if (typeof res.error === 'string' && EVM_REVERTED.test(res.error)) return undefined;
  if (typeof res.error === 'string' && res.error !== '')
    throw new AppError('node_rest_error', `minievm call ${contract}: ${res.error}`, { retryable: true });
  return typeof res.response === 'string' ? res.response : '0x';
}

/** cw721 `contract_info` name and the instantiator (see NftLookups.wasmCollection). */
async function readWasmCollection(
  rest: RestClient,
  logger: Logger | undefined,
  contract: string,
  height: number,
): Promise<{ name: string; creator: string } | undefined> {
  const query = Buffer.from('{"contract_info":{}}').toString('base64url');
  let info: { data?: { name?: unknown } } | undefined;
  try {
    info = (await rest.getJson(`/cosmwasm/wasm/v1/contract/${contract}/smart/${query}`, {
      height,
      purpose: 'nft_lookup',
    })) as { data?: { name?: unknown } } | undefined;
  } catch (err) {
    if (!isWasmContractError(err)) throw err;
    logger?.debug({ contract, height }, 'contract rejects contract_info: not a cw721 collection');
    return undefined;
  }
  const contractInfo = (await rest.getJson(`/cosmwasm/wasm/v1/contract/${contract}`, {
    height,
    purpose: 'nft_lookup',
  })) as { contract_info?: { creator?: unknown } } | undefined;
  const creator = String(contractInfo?.contract_info?.creator ?? '');
  if (typeof info?.data?.name === 'string') return { name: info.data.name, creator };
  // It emitted cw721 events but its name cannot be read (no answer, or no name in it):
  // its tokens are still indexed, under a collection named "" (see wasmCollection).
  logger?.warn({ contract, height }, 'cw721 contract_info has no readable name');
  return { name: '', creator };
}

/**
 * An ABI-encoded `string` return value (offset word, length word, bytes); "" for an empty answer
 * (a call to an address without code), undefined when the answer is not an ABI string (odd hex,
 * an offset or length pointing past the end): contract output is chain data, never trusted.
 */
export function decodeAbiString(hex: string): string | undefined {
  const digits = hex.replace(/^0x/, '');
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) return undefined;
  const bytes = Buffer.from(digits, 'hex');
  if (bytes.length === 0) return '';
  const word = (at: number): number | undefined => {
    if (at + 32 > bytes.length) return undefined;
    const v = BigInt('0x' + bytes.subarray(at, at + 32).toString('hex'));
    return v <= BigInt(bytes.length) ? Number(v) : undefined;
  };
  const offset = word(0);
  const length = offset === undefined ? undefined : word(offset);
  if (offset === undefined || length === undefined || offset + 32 + length > bytes.length) return undefined;
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
