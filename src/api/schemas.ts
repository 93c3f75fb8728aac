import { Type, type TSchema } from '@sinclair/typebox';
import { Block, BlockResponse, BlocksResponse } from '../wire/block.js';
import { EvmInternalTx, EvmInternalTxsResponse } from '../wire/evm-internal-tx.js';
import { EvmTx, EvmTxResponse, EvmTxsResponse } from '../wire/evm-tx.js';
import { NftCollection, NftCollectionResponse, NftCollectionsResponse } from '../wire/nft-collection.js';
import { Nft, NftsResponse } from '../wire/nft-token.js';
import { PaginationResponse } from '../wire/pagination.js';
import { TokenHolder, TokenHoldersResponse } from '../wire/rich-list-holder.js';
import { ref } from '../wire/schema.js';
import { Tx, TxResponse, TxsResponse } from '../wire/tx.js';

export { ref };

/**
 * The API's own schemas (errors, status, query strings and path parameters) and the list of every
 * schema the app registers: the served documents' schemas are their wire modules' (src/wire), so
 * route validation and the OpenAPI document publish exactly what the renderers write. `$id`s are
 * the reference's definition names (docs/api.md); routes refer to them with `ref(...)`.
 */

export const ErrorResponse = Type.Object(
  {
    code: Type.Integer({
      description:
        'gRPC code: 3 invalid argument, 5 not found, 12 unimplemented, 13 internal, 14 unavailable',
    }),
    message: Type.String(),
    details: Type.Array(Type.Unknown()),
  },
  { $id: 'common.ErrorResponse' },
);

export const StatusResponse = Type.Object(
  {
    version: Type.String(),
    commit_hash: Type.String(),
    chain_id: Type.String(),
    height: Type.Integer(),
    internal_tx_height: Type.Optional(Type.Integer()),
    rich_list_height: Type.Optional(Type.Integer()),
    evm_ret_cleanup_height: Type.Optional(Type.Integer()),
    tx_account_cleanup_sequence: Type.Optional(Type.Integer()),
    tx_account_cleanup_deleted: Type.Optional(Type.Integer()),
    tx_account_cleanup_inserted: Type.Optional(Type.Integer()),
  },
  { $id: 'status.StatusResponse' },
);

export const AvgBlockTimeResponse = Type.Object(
  { avg_block_time: Type.Number({ description: 'seconds' }) },
  { $id: 'block.AvgBlockTimeResponse' },
);

export const HealthResponse = Type.Object({ status: Type.String() }, { $id: 'health.HealthResponse' });

/** Schemas of every VM, in dependency order, for `app.addSchema`. */
export const SHARED_SCHEMAS: TSchema[] = [
  PaginationResponse,
  ErrorResponse,
  StatusResponse,
  AvgBlockTimeResponse,
  Block,
  BlocksResponse,
  BlockResponse,
  Tx,
  TxsResponse,
  TxResponse,
  NftCollection,
  NftCollectionsResponse,
  NftCollectionResponse,
  Nft,
  NftsResponse,
  TokenHolder,
  TokenHoldersResponse,
  HealthResponse,
];

/** Schemas of EVM rollups only: a Move or Wasm chain's OpenAPI document does not list them. */
export const EVM_SCHEMAS: TSchema[] = [
  EvmTx,
  EvmTxsResponse,
  EvmTxResponse,
  EvmInternalTx,
  EvmInternalTxsResponse,
];

// Query strings: every value is text (the parsers of docs/api.md §2 decide what it means, and bad
// numbers fall back to defaults rather than failing validation).
const paginationProperties = {
  'pagination.key': Type.Optional(Type.String({ description: 'base64 key from a previous page' })),
  'pagination.offset': Type.Optional(Type.String({ description: 'integer, default 0' })),
  'pagination.limit': Type.Optional(Type.String({ description: 'integer 1..1000, default 100' })),
  'pagination.count_total': Type.Optional(Type.String({ description: 'boolean, default true' })),
  'pagination.reverse': Type.Optional(Type.String({ description: 'boolean, default true (newest first)' })),
};
const msgsProperty = {
  msgs: Type.Optional(
    Type.Array(Type.String(), {
      description: 'message type URLs; repeated and/or comma-separated; OR semantics; leading "/" optional',
    }),
  ),
};

export const PaginationQuery = Type.Object(paginationProperties);
export const MsgsQuery = Type.Object({ ...paginationProperties, ...msgsProperty });
export const AccountTxsQuery = Type.Object({
  ...paginationProperties,
  ...msgsProperty,
  is_signer: Type.Optional(Type.String({ description: '"true" keeps only txs the account signed' })),
});
export const SignerQuery = Type.Object({
  ...paginationProperties,
  is_signer: Type.Optional(Type.String({ description: '"true" keeps only txs the account sent' })),
});

const tokenIdProperty = {
  token_id: Type.Optional(Type.String({ description: 'exact token id (case-sensitive); empty = any' })),
};
const orderByProperty = {
  order_by: Type.Optional(Type.String({ description: 'token_id (default) or height' })),
};
export const TokensByAccountQuery = Type.Object({
  ...paginationProperties,
  collection_addr: Type.Optional(
    Type.String({ description: 'collection address (bech32 or hex); empty = any' }),
  ),
  ...tokenIdProperty,
  ...orderByProperty,
});
export const TokensByCollectionQuery = Type.Object({
  ...paginationProperties,
  ...tokenIdProperty,
  ...orderByProperty,
});

const collectionAddrProperty = {
  collection_addr: Type.String({
    description: 'collection address: bech32 (chain prefix) or hex, 20 or 32 bytes',
  }),
};
export const CollectionAddrParams = Type.Object(collectionAddrProperty);
export const NftTxParams = Type.Object({
  ...collectionAddrProperty,
  token_id: Type.String({ description: 'token id, as sent (not percent-decoded)' }),
});
export const NameParams = Type.Object({
  name: Type.String({
    description:
      'matched against collection names and origin names with only letters, marks and digits kept, lower-cased (substring); percent-decoded first',
  }),
});

export const HeightParams = Type.Object({ height: Type.String({ description: 'block height' }) });
export const AccountParams = Type.Object({
  account: Type.String({ description: 'bech32 (chain prefix) or hex address, 20 or 32 bytes' }),
});
export const HashParams = Type.Object({
  tx_hash: Type.String({ description: 'hex, 0x optional, any case' }),
});

export const errorResponses = {
  400: ref('common.ErrorResponse'),
  404: ref('common.ErrorResponse'),
  500: ref('common.ErrorResponse'),
  503: ref('common.ErrorResponse'),
};
