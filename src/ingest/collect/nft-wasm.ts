import { tryAccountBytes } from '../../shared/address.js';
import type { NftLookups } from '../../node/nft-lookups.js';
import type { RawBlock } from '../../node/types.js';
import type { NftBlockRows, NftChange, NftCollectionRow } from '../../store/writers/nft-rows.js';
import {
  blockEvents,
  logSkippedEvent,
  originNames,
  stripNul,
  type BlockEvent,
  type NftCollectContext,
} from './nft-events.js';

/** cw721 actions that name a token (cw20 shares `mint`/`burn` but never carries `token_id`). */
const TOKEN_ACTIONS = new Set(['mint', 'transfer_nft', 'send_nft', 'burn']);
/** URI changes: sg721 / cw721-metadata-onchain `update_token_metadata`, cw721 ≥ 0.19 `update_nft_info`. */
const URI_ACTIONS = new Set(['update_token_metadata', 'update_nft_info']);
/**
 * sg721-updatable emits its URI change as a custom event (`Event::new("update_update_token_metadata")`,
 * so type `wasm-…`), with `token_uri` only when the uri is set, none when it is cleared.
 */
const SG721_UPDATE_EVENT = 'wasm-update_update_token_metadata';

const isUriChange = (e: BlockEvent): boolean =>
  e.type === SG721_UPDATE_EVENT || URI_ACTIONS.has(e.attrs.get('action') ?? '');

/**
 * Which contracts are asked whether they are collections (docs/ingest.md §7.3): a mint-like event (`minter` plus
 * `creator` or `owner`: cw721's mint, sg721's instantiate), as the reference does, and — so a
 * collection first touched after the start height is still found — any cw721 token action or URI
 * change that names a `token_id`. cw20 `mint`/`burn`/`transfer` name none and are never queried.
 */
function isCandidate(e: BlockEvent): boolean {
  const a = e.attrs;
  if (a.has('minter') && (a.has('creator') || a.has('owner'))) return true;
  return a.has('token_id') && (TOKEN_ACTIONS.has(a.get('action') ?? '') || isUriChange(e));
}

/**
 * cw721 / sg721 NFTs of one block (docs/ingest.md §7.3). Candidate contracts (isCandidate) are asked
 * for their `contract_info` name and instantiator (cached per contract; contracts that reject the
 * query are not collections). A mint or URI change whose event carries no `token_uri` (cw721-base
 * mints, cw721 ≥ 0.19 `update_nft_info`, a cleared sg721 uri) takes the uri from the contract's
 * `nft_info` at the block height; the reference stores "" for such mints (docs/ingest.md §7.3).
 * An owner or recipient that is no account address is chain data we cannot store (owners are
 * account ids): that event's change is skipped with a warning instead of halting ingest.
 */
export async function collectWasmNfts(raw: RawBlock, ctx: NftCollectContext): Promise<NftBlockRows> {
  const all = blockEvents(raw);
  const events = all.filter(
    (e) => (e.type === 'wasm' || e.type === SG721_UPDATE_EVENT) && e.attrs.has('_contract_address'),
  );
  const contracts = new Map<string, Uint8Array>();
  for (const e of events) {
    if (!isCandidate(e)) continue;
    const bytes = tryAccountBytes(e.attrs.get('_contract_address')!, ctx.prefix);
    if (bytes) contracts.set(e.attrs.get('_contract_address')!, bytes);
  }
  const infos = new Map(
    await Promise.all(
      [...contracts.keys()].map(async (c) => [c, await ctx.lookups.wasmCollection(c, raw.height)] as const),
    ),
  );
  const collections: NftCollectionRow[] = [];
  for (const [contract, info] of infos) {
    if (!info) continue;
    collections.push({
      addr: contracts.get(contract)!,
      height: raw.height,
      timestamp: raw.time,
      name: stripNul(info.name),
      // An unknown instantiator is no account (tryAccountBytes reads "" as the zero address).
      creator: info.creator === '' ? null : (tryAccountBytes(info.creator, ctx.prefix) ?? null),
    });
  }
  const isCollection = (e: BlockEvent): boolean => infos.get(e.attrs.get('_contract_address')!) !== undefined;
  const uris = await urisFromNftInfo(
    events.filter((e) => isCollection(e) && needsNftInfo(e)),
    raw.height,
    ctx.lookups,
  );
  const changes: NftChange[] = [];
  for (const e of events) {
    if (!isCollection(e) || !e.attrs.has('token_id')) continue;
    const change = changeOf(e, contracts.get(e.attrs.get('_contract_address')!)!, uris, raw, ctx);
    if (change) changes.push(change);
  }
  return { collections, changes, originNames: originNames('wasm', all) };
}

/** One event's token change, or undefined when it changes nothing we store. */
function changeOf(
  e: BlockEvent,
  collection: Uint8Array,
  uris: ReadonlyMap<string, string>,
  raw: RawBlock,
  ctx: NftCollectContext,
): NftChange | undefined {
  const a = e.attrs;
  const contract = a.get('_contract_address')!;
  const tokenId = a.get('token_id')!;
  const ref = { collection, tokenId: stripNul(tokenId) };
  const txIndex = e.txIndex;
  const action = a.get('action');
  const uri = (): string => stripNul(a.get('token_uri') ?? uris.get(uriKey(contract, tokenId)) ?? '');
  const account = (key: 'owner' | 'recipient'): Uint8Array | undefined => {
    const bytes = tryAccountBytes(a.get(key)!, ctx.prefix);
    if (!bytes) {
      const reason = `${key} is not an account address`;
      logSkippedEvent(ctx, raw, e, { contract, tokenId, action, [key]: a.get(key), reason });
    }
    return bytes;
  };
  if (isUriChange(e)) return { kind: 'uri', ref, uri: uri(), txIndex };
  if (action === 'mint' && a.has('owner')) {
    const owner = account('owner');
    return owner && { kind: 'mint', ref, objectAddr: null, owner, uri: uri(), txIndex };
  }
  if ((action === 'transfer_nft' || action === 'send_nft') && a.has('recipient')) {
    const owner = account('recipient');
    return owner && { kind: 'transfer', ref, owner, txIndex };
  }
  if (action === 'burn') return { kind: 'burn', ref, txIndex };
  return undefined;
}

const uriKey = (contract: string, tokenId: string): string => `${contract}/${tokenId}`;

/** A mint or URI change whose event names no uri: the contract's `nft_info` at the height tells it. */
const needsNftInfo = (e: BlockEvent): boolean =>
  e.attrs.has('token_id') &&
  !e.attrs.has('token_uri') &&
  (isUriChange(e) || (e.attrs.get('action') === 'mint' && e.attrs.has('owner')));

/** `nft_info` token uris of the given events' tokens, by `contract/tokenId`. */
async function urisFromNftInfo(
  events: readonly BlockEvent[],
  height: number,
  lookups: NftLookups,
): Promise<Map<string, string>> {
  const wanted = new Map<string, { contract: string; tokenId: string }>();
  for (const e of events) {
    const contract = e.attrs.get('_contract_address')!;
    const tokenId = e.attrs.get('token_id')!;
    wanted.set(uriKey(contract, tokenId), { contract, tokenId });
  }
  return new Map(
    await Promise.all(
      [...wanted].map(
        async ([key, t]) => [key, await lookups.wasmTokenUri(t.contract, t.tokenId, height)] as const,
      ),
    ),
  );
}
