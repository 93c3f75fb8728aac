import { accountBytesFromString, tryAccountBytes } from '../../shared/address.js';
import type { NftLookups } from '../../node/nft-lookups.js';
import type { RawBlock } from '../../node/types.js';
import type { NftBlockRows, NftChange, NftCollectionRow } from '../../store/writers/nft-rows.js';
import { blockEvents, originNames, stripNul, type BlockEvent } from './nft-events.js';

const NFT_ACTIONS = new Set([
  'mint',
  'transfer_nft',
  'send_nft',
  'burn',
  'update_token_metadata',
  'update_nft_info',
]);

/**
 * cw721 / sg721 NFTs of one block (indexer.md §7.3). A contract emitting a mint-like event
 * (`minter` plus `creator` or `owner`) or any NFT action is asked for its `contract_info` name and
 * instantiator (cached per contract; contracts that do not speak the cw721 query are left out).
 * URI changes: sg721 `update_token_metadata` and `update_nft_info` with `token_uri`.
 * A mint event without `token_uri` (cw721-base emits none) takes the uri from the contract's
 * `nft_info` at the block height; the reference stores "" there (§7.3).
 */
export async function collectWasmNfts(
  raw: RawBlock,
  ctx: { prefix: string; lookups: NftLookups },
): Promise<NftBlockRows> {
  const events = blockEvents(raw).filter((e) => e.type === 'wasm' && e.attrs.has('_contract_address'));
  const contracts = new Map<string, Uint8Array>();
  for (const e of events) {
    const a = e.attrs;
    const mintLike = a.has('minter') && (a.has('creator') || a.has('owner'));
    if (!mintLike && !NFT_ACTIONS.has(a.get('action') ?? '')) continue;
    const bytes = tryAccountBytes(a.get('_contract_address')!, ctx.prefix);
    if (bytes) contracts.set(a.get('_contract_address')!, bytes);
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

  const uris = await mintUrisWithoutAttribute(events, infos, raw.height, ctx.lookups);
  const changes: NftChange[] = [];
  const account = (text: string): Uint8Array => accountBytesFromString(text, ctx.prefix);
  for (const e of events) {
    const a = e.attrs;
    const contract = a.get('_contract_address')!;
    if (!infos.get(contract)) continue;
    const tokenId = a.get('token_id');
    if (tokenId === undefined) continue;
    const ref = { collection: contracts.get(contract)!, tokenId: stripNul(tokenId) };
    const txIndex = e.txIndex;
    const action = a.get('action');
    if (action === 'mint' && a.has('owner')) {
      changes.push({
        kind: 'mint',
        ref,
        objectAddr: null,
        owner: account(a.get('owner')!),
        uri: stripNul(a.get('token_uri') ?? uris.get(`${contract}/${tokenId}`) ?? ''),
        txIndex,
      });
    } else if ((action === 'transfer_nft' || action === 'send_nft') && a.has('recipient')) {
      changes.push({ kind: 'transfer', ref, owner: account(a.get('recipient')!), txIndex });
    } else if (action === 'burn') {
      changes.push({ kind: 'burn', ref, txIndex });
    } else if ((action === 'update_token_metadata' || action === 'update_nft_info') && a.has('token_uri')) {
      changes.push({ kind: 'uri', ref, uri: stripNul(a.get('token_uri')!), txIndex });
    }
  }
  return { collections, changes, originNames: originNames('wasm', blockEvents(raw)) };
}

/** `nft_info` token uris of the block's mints whose event names none, by `contract/tokenId`. */
async function mintUrisWithoutAttribute(
  events: readonly BlockEvent[],
  infos: ReadonlyMap<string, unknown>,
  height: number,
  lookups: NftLookups,
): Promise<Map<string, string>> {
  const wanted = new Set<string>();
  for (const e of events) {
    const a = e.attrs;
    const contract = a.get('_contract_address')!;
    if (a.get('action') !== 'mint' || !infos.get(contract) || a.has('token_uri')) continue;
    if (a.has('token_id') && a.has('owner')) wanted.add(`${contract}/${a.get('token_id')!}`);
  }
  return new Map(
    await Promise.all(
      [...wanted].map(async (key) => {
        const cut = key.indexOf('/');
        return [key, await lookups.wasmTokenUri(key.slice(0, cut), key.slice(cut + 1), height)] as const;
      }),
    ),
  );
}
