import { Type } from '@sinclair/typebox';
import { listEnvelope } from './pagination.js';

/**
 * The NFT token document (docs/api.md, nft.Nft). PostgreSQL renders it as the row is written
 * (generated columns of migration 0008: `nft_collection.token_json_head || nft.json_head`, then the
 * owner, then `nft.json_tail`), because the owner's bech32 text depends on the API's account prefix;
 * the API splices the three pieces. A change of this document is therefore a migration of those
 * generated columns (PostgreSQL recomputes them), not a re-render by the store's job.
 */

/** Version of the generated columns' text. */
export const NFT_TOKEN_FORMAT_VERSION = 1;

export const NFT_TOKEN_KEY_ORDER = [
  'collection_addr',
  'collection_name',
  'collection_origin_name',
  'object_addr',
  'owner',
  'nft',
  'height',
  'timestamp',
] as const;

export const Nft = Type.Object(
  {
    collection_addr: Type.String({ description: '0x + lower-case hex' }),
    collection_name: Type.String(),
    collection_origin_name: Type.String(),
    object_addr: Type.String({ description: 'Move: 0x + 64 hex of the NFT object; "" on EVM and Wasm' }),
    owner: Type.String({ description: 'bech32 with the chain prefix' }),
    nft: Type.Object({ token_id: Type.String(), uri: Type.String() }),
    height: Type.Integer({ description: 'height of the last mint, transfer or URI change' }),
    timestamp: Type.String({ description: 'RFC 3339, up to microseconds' }),
  },
  { $id: 'nft.Nft' },
);
export const NftsResponse = listEnvelope('nft.NftsResponse', 'tokens', 'nft.Nft');

/** A token's stored document around its owner. */
export interface NftTokenPieces {
  /** `{"collection_addr":…,"owner":"` */
  head: string;
  /** Owner account bytes; null when its dictionary row is missing (document: ""). */
  owner: Buffer | null;
  /** `","nft":{…},"height":…,"timestamp":"…"}` */
  tail: string;
}

export function renderToken(row: NftTokenPieces, account: (bytes: Uint8Array | null) => string): string {
  return row.head + account(row.owner) + row.tail;
}
