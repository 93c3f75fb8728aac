import { accountBytesFromString } from '../../shared/address.js';
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

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ZERO_TOPIC = '0x' + '0'.repeat(64);
/** A 32-byte topic word; anything else cannot be an address or a token id. */
const TOPIC_RE = /^0x[0-9a-fA-F]{64}$/;

interface Erc721Transfer {
  collection: string;
  from: string;
  to: string;
  tokenId: string;
  txIndex: number | null;
}

/**
 * ERC721 Transfer logs (4 topics, empty data) of the block's `evm` events, in order (docs/ingest.md §7.2). A log
 * with the Transfer shape but a topic that is no 32-byte word is skipped with a warning.
 */
function erc721Transfers(
  raw: RawBlock,
  events: readonly BlockEvent[],
  ctx: NftCollectContext,
): Erc721Transfer[] {
  const out: Erc721Transfer[] = [];
  for (const e of events) {
    if (e.type !== 'evm') continue;
    for (const attr of e.raw) {
      if (attr.key !== 'log') continue;
      let log: { address?: unknown; topics?: unknown; data?: unknown };
      try {
        log = JSON.parse(attr.value) as typeof log;
      } catch {
        continue; // not a log we can read; it cannot be an ERC721 transfer either
      }
      const t = Array.isArray(log.topics) ? (log.topics as string[]) : [];
      if (t.length !== 4 || t[0] !== TRANSFER_TOPIC || log.data !== '0x' || typeof log.address !== 'string')
        continue;
      if (!t.every((topic) => typeof topic === 'string' && TOPIC_RE.test(topic))) {
        logSkippedEvent(ctx, raw, e, {
          contract: log.address,
          topics: t,
          reason: 'a topic is not a 32-byte word',
        });
        continue;
      }
      out.push({
        collection: log.address.toLowerCase(),
        from: t[1]!.toLowerCase(),
        to: t[2]!.toLowerCase(),
        tokenId: BigInt(t[3]!).toString(),
        txIndex: e.txIndex,
      });
    }
  }
  return out;
}

/**
 * ERC721 NFTs of one block (docs/ingest.md §7.2): mint = transfer from zero, burn = transfer to zero. Each
 * collection touched is asked for `name()` (cached) and each minted token for `tokenURI` at the
 * block height. A contract whose `name()` reverts (ERC721 without the optional metadata extension)
 * is still a collection, named "" as on Wasm: the reference's blacklist would drop tokens that exist.
 * The creator and creation height are the first stored tx touching the contract, resolved by the writer.
 */
export async function collectEvmNfts(raw: RawBlock, ctx: NftCollectContext): Promise<NftBlockRows> {
  const events = blockEvents(raw);
  const transfers = erc721Transfers(raw, events, ctx);
  const names = new Map(
    await Promise.all(
      [...new Set(transfers.map((t) => t.collection))].map(
        async (c) => [c, await ctx.lookups.evmName(c, raw.height)] as const,
      ),
    ),
  );
  const mintKeys = new Set<string>();
  for (const t of transfers) if (t.from === ZERO_TOPIC) mintKeys.add(`${t.collection}/${t.tokenId}`);
  const uris = new Map(
    await Promise.all(
      [...mintKeys].map(async (k) => {
        const [c, id] = k.split('/') as [string, string];
        return [k, await ctx.lookups.evmTokenUri(c, id, raw.height)] as const;
      }),
    ),
  );

  const collections: NftCollectionRow[] = [];
  for (const [addr, name] of names) {
    collections.push({
      addr: Buffer.from(addr.slice(2), 'hex'),
      height: raw.height,
      timestamp: raw.time,
      name: stripNul(name),
      creator: null,
      creatorFromFirstTx: true,
    });
  }
  const changes: NftChange[] = [];
  for (const t of transfers) {
    const ref = { collection: Buffer.from(t.collection.slice(2), 'hex'), tokenId: t.tokenId };
    if (t.from === ZERO_TOPIC && t.to !== ZERO_TOPIC) {
      const uri = uris.get(`${t.collection}/${t.tokenId}`) ?? '';
      changes.push({
        kind: 'mint',
        ref,
        objectAddr: null,
        owner: owner(t.to, ctx.prefix),
        uri: stripNul(uri),
        txIndex: t.txIndex,
      });
    } else if (t.from !== ZERO_TOPIC && t.to !== ZERO_TOPIC) {
      changes.push({ kind: 'transfer', ref, owner: owner(t.to, ctx.prefix), txIndex: t.txIndex });
    } else if (t.from !== ZERO_TOPIC) {
      changes.push({ kind: 'burn', ref, txIndex: t.txIndex });
    }
  }
  return { collections, changes, originNames: originNames('evm', events) };
}

/** A 32-byte topic holding an address, as account bytes (docs/ingest.md §6.1: 12 leading zero bytes collapse). */
const owner = (topic: string, prefix: string): Uint8Array => accountBytesFromString(topic, prefix);
