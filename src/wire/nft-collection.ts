import { Type } from '@sinclair/typebox';
import { listEnvelope } from './pagination.js';
import { ref } from './schema.js';

/** The NFT collection document (docs/api.md, nft.Collection): rendered on each read from its row. */

/** Version of the rendering (not stored: a change here needs no re-render of stored rows). */
export const NFT_COLLECTION_FORMAT_VERSION = 1;

export const NFT_COLLECTION_KEY_ORDER = ['object_addr', 'collection', 'height', 'timestamp'] as const;

export const NftCollection = Type.Object(
  {
    object_addr: Type.String({ description: '0x + lower-case hex (40 digits on EVM, 64 on Move and Wasm)' }),
    collection: Type.Object({
      creator: Type.String({ description: 'bech32 with the chain prefix; "" when unknown' }),
      name: Type.String(),
      origin_name: Type.String({ description: 'L1 class name of an IBC-transferred collection, else ""' }),
      nfts: Type.Object({
        handle: Type.String({ description: 'always ""' }),
        length: Type.Integer({ description: 'live (not burned) NFTs in the collection' }),
      }),
    }),
    height: Type.Integer({ description: 'creation height' }),
    timestamp: Type.String({ description: 'RFC 3339, up to microseconds' }),
  },
  { $id: 'nft.Collection' },
);
export const NftCollectionsResponse = listEnvelope(
  'nft.CollectionsResponse',
  'collections',
  'nft.Collection',
);
export const NftCollectionResponse = Type.Object(
  { collection: ref('nft.Collection') },
  { $id: 'nft.CollectionResponse' },
);

/** One collection row with everything its document needs. */
export interface NftCollectionValue {
  /** Lower-case hex, no 0x. */
  addr: string;
  height: number;
  /** `YYYY-MM-DDTHH:MI:SS.US` (UTC, microseconds, no zone). */
  ts: string;
  name: string;
  originName: string;
  /** Creator account bytes; null when unknown or its dictionary row is missing (document: ""). */
  creator: Buffer | null;
  nftCount: number;
}

/** Go's RFC3339Nano of a stored microsecond time: trailing zeros of the fraction dropped, 'Z'. */
export function rfc3339FromMicros(ts: string): string {
  const dot = ts.indexOf('.');
  if (dot < 0) return `${ts}Z`;
  let end = ts.length;
  while (end > dot + 1 && ts.charCodeAt(end - 1) === 48 /* '0' */) end--;
  return `${ts.slice(0, end === dot + 1 ? dot : end)}Z`;
}

/** A JSON string of a stored hex address (hex needs no escaping): `"0x…"`, or `""`. */
const hexAddr = (hex: string | null) => (hex ? `"0x${hex}"` : '""');

export function renderCollection(
  row: NftCollectionValue,
  account: (bytes: Uint8Array | null) => string,
): string {
  return (
    `{"object_addr":${hexAddr(row.addr)},"collection":{` +
    `"creator":${JSON.stringify(account(row.creator))},"name":${JSON.stringify(row.name)},` +
    `"origin_name":${JSON.stringify(row.originName)},"nfts":{"handle":"","length":${row.nftCount}}},` +
    `"height":${row.height},"timestamp":"${rfc3339FromMicros(row.ts)}"}`
  );
}
