import { accountBytesFromString, toBech32, tryNormaliseAccount } from '../../shared/address.js';
import { AppError } from '../../shared/errors.js';
import { boundedMemo } from '../../shared/memo.js';

/** An ABCI event as /block_results returns it (attribute value/index may be absent). */
export interface AbciEvent {
  readonly type: string;
  readonly attributes?: readonly AbciAttribute[] | null;
}

export interface AbciAttribute {
  readonly key: string;
  readonly value?: string | null;
  readonly index?: boolean | null;
}

export class AccountExtractionError extends AppError {
  constructor(message: string, cause?: unknown) {
    super('event_malformed', message, cause === undefined ? {} : { cause });
    this.name = 'AccountExtractionError';
  }
}

// QUIRK kept from rollytics (docs/ingest.md §6.2): the bech32 prefix is hard-coded to `init`.
const INIT_BECH32_RE = /^init1(?:[a-z0-9]{38}|[a-z0-9]{58})$/;
const HEX_PIECE_RE = /^0x[a-fA-F0-9]{1,64}$/;
const MOVE_HEX_RE = /0x[a-fA-F0-9]{1,64}/g;
const PADDED_TOPIC_PREFIX = '0x000000000000000000000000';

export interface ExtractAccountsOptions {
  /** Account bech32 prefix for normalisation (docs/ingest.md §6.1). */
  readonly prefix: string;
  /**
   * FA store owners known to the caller, keyed by `faStoreKey(store_addr)`. rollytics means to
   * add the owner of every fungible-asset store a tx touches but its lookup never matches
   * (docs/ingest.md §6.2); passing this map implements the intended lookup (a superset). Omit it to
   * reproduce rollytics' effective behaviour exactly.
   */
  readonly storeOwners?: ReadonlyMap<string, string>;
  /** A memoised docs/ingest.md §6.1 normaliser (createAccountNormaliser) to reuse across txs; optional. */
  readonly normalise?: (candidate: string) => string | undefined;
}

/**
 * docs/ingest.md §6.1 normalisation to bech32 with a bounded memo: the same addresses recur in every event
 * of a tx and across txs, and bech32 decode + encode dominates extraction otherwise.
 */
export function createAccountNormaliser(
  prefix: string,
  limit = 50_000,
): (candidate: string) => string | undefined {
  return boundedMemo((candidate) => tryNormaliseAccount(candidate, prefix), limit);
}

/** Cheap length/prefix tests before the anchored regexes of docs/ingest.md §6.2. */
function isAddressPiece(piece: string): boolean {
  const len = piece.length;
  if (len === 43 || len === 63) {
    if (piece.startsWith('init1') && INIT_BECH32_RE.test(piece)) return true;
  }
  return (
    len >= 3 &&
    len <= 66 &&
    piece.charCodeAt(0) === 48 &&
    piece.charCodeAt(1) === 120 &&
    HEX_PIECE_RE.test(piece)
  );
}

/** Canonical key of a Move store address: lower-case hex, no `0x`, no leading zeros. */
export function faStoreKey(storeAddr: string): string {
  return storeAddr.replace(/^0x/, '').toLowerCase().replace(/^0+/, '');
}

/**
 * Accounts involved in one tx (docs/ingest.md §6.2, GrepAddressesFromTx), as distinct bech32
 * strings in first-occurrence order, the signer last unless already present. Candidates that do
 * not normalise are skipped; a malformed EVM log or FA event JSON throws.
 */
export function extractAccounts(
  events: readonly AbciEvent[],
  signer: string | undefined,
  options: ExtractAccountsOptions,
): string[] {
  const found = new Set<string>();
  const normalise = options.normalise ?? ((c: string) => tryNormaliseAccount(c, options.prefix));
  // The same candidates recur across a tx's events (~3x): a small per-tx set answers them before
  // the process-wide memo, whose map is large and cold.
  const tried = new Set<string>();
  const add = (candidate: string) => {
    if (tried.has(candidate)) return;
    tried.add(candidate);
    const account = normalise(candidate);
    if (account !== undefined) found.add(account);
  };
  const stores: string[] = [];
  // Plain loops and exec(): this runs over every attribute of every tx, where forEach closures
  // and matchAll's iterator objects cost more than the tests themselves.
  for (let eventIndex = 0; eventIndex < events.length; eventIndex++) {
    const event = events[eventIndex]!;
    const attrs = event.attributes ?? [];
    for (let idx = 0; idx < attrs.length; idx++) {
      const attr = attrs[idx]!;
      const value = attr.value ?? '';
      if (event.type === 'move' && attr.key === 'data') {
        MOVE_HEX_RE.lastIndex = 0;
        for (let m = MOVE_HEX_RE.exec(value); m !== null; m = MOVE_HEX_RE.exec(value)) add(m[0]);
        const prev = idx > 0 ? attrs[idx - 1] : undefined;
        if (prev?.key === 'type_tag' && (prev.value ?? '').startsWith('0x1::fungible_asset')) {
          const store = fungibleAssetStore(value, eventIndex);
          if (store !== '') stores.push(store);
        }
      } else if (event.type === 'evm' && attr.key === 'log') {
        for (const candidate of evmLogCandidates(value, eventIndex)) add(candidate);
      } else if (event.type === 'call' && attr.key === 'ret') {
        // Skipped: EVM return data is not an address list (rollytics "ret fix").
      } else if (value.length >= 3) {
        if (!value.includes(',')) {
          if (isAddressPiece(value)) add(value);
        } else {
          for (const piece of value.split(',')) if (isAddressPiece(piece)) add(piece);
        }
      }
    }
  }
  if (options.storeOwners) {
    for (const store of stores) {
      const owner = options.storeOwners.get(faStoreKey(store));
      if (owner !== undefined) add(owner);
    }
  }
  if (signer !== undefined) add(signer);
  return [...found];
}

/** Store addresses of `0x1::fungible_asset::*` events in a tx, for an owner lookup by the caller. */
export function referencedFaStores(events: readonly AbciEvent[]): string[] {
  const stores = new Set<string>();
  events.forEach((event, eventIndex) => {
    if (event.type !== 'move') return;
    const attrs = event.attributes ?? [];
    attrs.forEach((attr, idx) => {
      const prev = idx > 0 ? attrs[idx - 1] : undefined;
      if (attr.key !== 'data' || prev?.key !== 'type_tag') return;
      if (!(prev.value ?? '').startsWith('0x1::fungible_asset')) return;
      const store = fungibleAssetStore(attr.value ?? '', eventIndex);
      if (store !== '') stores.add(faStoreKey(store));
    });
  });
  return [...stores];
}

export interface PrimaryStoreCreated {
  readonly storeKey: string;
  readonly storeAddr: string;
  readonly ownerAddr: string;
}

/** `0x1::primary_fungible_store::PrimaryStoreCreatedEvent` rows of a block (docs/ingest.md §6.2). */
export function primaryStoresCreated(events: readonly AbciEvent[]): PrimaryStoreCreated[] {
  const out: PrimaryStoreCreated[] = [];
  events.forEach((event, eventIndex) => {
    if (event.type !== 'move') return;
    const attrs = event.attributes ?? [];
    const tag = attrs.find((a) => a.key === 'type_tag')?.value;
    if (tag !== '0x1::primary_fungible_store::PrimaryStoreCreatedEvent') return;
    const data = parseObject(
      attrs.find((a) => a.key === 'data')?.value ?? '',
      `move event #${eventIndex} data`,
    );
    const storeAddr = typeof data['store_addr'] === 'string' ? data['store_addr'] : '';
    const ownerAddr = typeof data['owner_addr'] === 'string' ? data['owner_addr'] : '';
    if (storeAddr !== '' && ownerAddr !== '')
      out.push({ storeKey: faStoreKey(storeAddr), storeAddr, ownerAddr });
  });
  return out;
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new AccountExtractionError(`${what} is not valid JSON`, cause);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AccountExtractionError(`${what} is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function fungibleAssetStore(data: string, eventIndex: number): string {
  const obj = parseObject(data, `move fungible_asset event #${eventIndex} data`);
  return typeof obj['store_addr'] === 'string' ? obj['store_addr'] : '';
}

function evmLogCandidates(value: string, eventIndex: number): string[] {
  const log = parseObject(value, `evm event #${eventIndex} log`);
  // Go unmarshals a missing address as "", which normalises to the zero address (kept).
  const out = [typeof log['address'] === 'string' ? log['address'] : ''];
  const topics = Array.isArray(log['topics']) ? log['topics'] : [];
  for (let k = 1; k < topics.length; k++) {
    const topic = topics[k];
    if (typeof topic === 'string' && topic.startsWith(PADDED_TOPIC_PREFIX)) out.push(topic);
  }
  return out;
}

/** The fields of an EVM receipt that docs/ingest.md §6.3 reads. */
export interface EvmReceiptLike {
  readonly from?: string | null;
  readonly to?: string | null;
  readonly contractAddress?: string | null;
  readonly logs?:
    readonly { readonly address?: string | null; readonly topics?: readonly string[] | null }[] | null;
}

/**
 * Accounts of an EVM receipt (docs/ingest.md §6.3): from, to, contractAddress, log addresses and padded
 * topics k ≥ 1. Unlike the Cosmos path, any address that does not normalise throws.
 */
export function extractEvmReceiptAccounts(receipt: EvmReceiptLike, prefix: string): string[] {
  const candidates: [string, string][] = [];
  if (receipt.from) candidates.push(['from', receipt.from]);
  if (receipt.to) candidates.push(['to', receipt.to]);
  if (receipt.contractAddress) candidates.push(['contractAddress', receipt.contractAddress]);
  (receipt.logs ?? []).forEach((log, i) => {
    candidates.push([`logs[${i}].address`, log.address ?? '']);
    const topics = log.topics ?? [];
    for (let k = 1; k < topics.length; k++) {
      const topic = topics[k] ?? '';
      if (topic.startsWith(PADDED_TOPIC_PREFIX)) candidates.push([`logs[${i}].topics[${k}]`, topic]);
    }
  });
  const found = new Set<string>();
  for (const [field, text] of candidates) {
    try {
      found.add(toBech32(accountBytesFromString(text, prefix), prefix));
    } catch (cause) {
      throw new AccountExtractionError(
        `EVM receipt ${field} is not an address: ${JSON.stringify(text)}`,
        cause,
      );
    }
  }
  return [...found];
}
