import { AppError } from '../../shared/errors.js';
import { accountBytesFromString } from '../../shared/address.js';
import type { NftLookups } from '../../node/nft-lookups.js';
import type { RawBlock } from '../../node/types.js';
import type { NftBlockRows, NftChange, NftCollectionRow } from '../../store/writers/nft-rows.js';
import { blockEvents, moveAddressBytes, originNames, stripNul, type BlockEvent } from './nft-events.js';

const hexOf = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex');

interface MoveEvent {
  tag: string;
  data: Record<string, string>;
  txIndex: number | null;
}

function moveEvents(events: readonly BlockEvent[]): MoveEvent[] {
  const out: MoveEvent[] = [];
  for (const e of events) {
    if (e.type !== 'move') continue;
    const tag = e.attrs.get('type_tag');
    const data = e.attrs.get('data');
    if (!tag || !data || !TAGS.has(tag)) continue;
    out.push({ tag, data: JSON.parse(data) as Record<string, string>, txIndex: e.txIndex });
  }
  return out;
}

const CREATE = '0x1::collection::CreateCollectionEvent';
const MINT = '0x1::collection::MintEvent';
const BURN = '0x1::collection::BurnEvent';
const TRANSFER = '0x1::object::TransferEvent';
const MUTATION = '0x1::nft::MutationEvent';
const TAGS = new Set([CREATE, MINT, BURN, TRANSFER, MUTATION]);

/**
 * Move NFTs of one block (docs/ingest.md §7.1). Token id and uri come from the `0x1::nft::Nft`
 * resource at the block height; a minted token is owned by its collection's creator until a
 * TransferEvent says otherwise. A mint into a collection this block did not create also yields
 * the collection from its `0x1::collection::Collection` resource (insert-if-absent), so a start
 * mid-chain still finds collections created before it.
 */
export async function collectMoveNfts(
  raw: RawBlock,
  ctx: { prefix: string; lookups: NftLookups },
): Promise<NftBlockRows> {
  const events = blockEvents(raw);
  const collections = new Map<string, NftCollectionRow>();
  const changes: NftChange[] = [];
  const account = (text: string): Uint8Array => accountBytesFromString(text, ctx.prefix);
  const moves = moveEvents(events);
  const minted = await resolveMints(raw.height, moves, ctx.lookups);

  for (const ev of moves) {
    const d = ev.data;
    if (ev.tag === CREATE) {
      const addr = moveAddressBytes(d.collection!);
      collections.set(hexOf(addr), {
        addr,
        height: raw.height,
        timestamp: raw.time,
        name: stripNul(d.name ?? ''),
        creator: account(d.creator!),
      });
    } else if (ev.tag === MINT) {
      const object = moveAddressBytes(d.nft!);
      const nft = minted.get(hexOf(object));
      if (!nft) continue; // minted and burnt in this block: no resource, nothing to keep
      const collection = moveAddressBytes(d.collection!);
      let creator = collections.get(hexOf(collection))?.creator ?? null;
      if (!creator) {
        const info = await ctx.lookups.moveCollection(hexOf(collection), raw.height);
        creator = info ? account(info.creator) : null;
        if (info && creator) {
          collections.set(hexOf(collection), {
            addr: collection,
            height: raw.height,
            timestamp: raw.time,
            name: stripNul(info.name),
            creator,
          });
        }
      }
      if (!creator) continue; // no collection at this height: not an NFT we can place
      changes.push({
        kind: 'mint',
        ref: { collection, tokenId: stripNul(nft.tokenId) },
        objectAddr: object,
        owner: creator,
        uri: stripNul(nft.uri),
        txIndex: ev.txIndex,
      });
    } else if (ev.tag === TRANSFER) {
      changes.push({
        kind: 'transfer',
        ref: { object: moveAddressBytes(d.object!) },
        owner: account(d.to!),
        txIndex: ev.txIndex,
      });
    } else if (ev.tag === MUTATION) {
      if (d.mutated_field_name !== 'uri') continue;
      changes.push({
        kind: 'uri',
        ref: { object: moveAddressBytes(d.nft!) },
        uri: stripNul(d.new_value ?? ''),
        txIndex: ev.txIndex,
      });
    } else if (ev.tag === BURN) {
      changes.push({ kind: 'burn', ref: { object: moveAddressBytes(d.nft!) }, txIndex: ev.txIndex });
    }
  }
  return { collections: [...collections.values()], changes, originNames: originNames('move', events) };
}

/** The Nft resource of every object minted and not burnt in the block, read concurrently. */
async function resolveMints(
  height: number,
  moves: readonly MoveEvent[],
  lookups: NftLookups,
): Promise<Map<string, { tokenId: string; uri: string }>> {
  const live = new Set<string>();
  for (const ev of moves) {
    if (ev.tag === MINT) live.add(hexOf(moveAddressBytes(ev.data.nft!)));
    if (ev.tag === BURN) live.delete(hexOf(moveAddressBytes(ev.data.nft!)));
  }
  const entries = await Promise.all(
    [...live].map(async (object) => [object, await lookups.moveNft(object, height)] as const),
  );
  const out = new Map<string, { tokenId: string; uri: string }>();
  for (const [object, nft] of entries) {
    if (!nft) {
      throw new AppError(
        'nft_lookup_failed',
        `height ${height}: NFT object ${object} was minted but holds no 0x1::nft::Nft resource`,
      );
    }
    out.set(object, nft);
  }
  return out;
}
