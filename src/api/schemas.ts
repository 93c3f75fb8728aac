import { Type, type TSchema } from '@sinclair/typebox';

/**
 * TypeBox schemas shared by route validation and the OpenAPI document. `$id`s are the
 * reference's definition names (docs/api.md §4.8); routes refer to them with `ref(...)`.
 * Nullable fields use OpenAPI 3.0 `nullable`, which Ajv also understands.
 */

const nullableString = (description?: string) =>
  Type.Unsafe<string | null>({ type: 'string', nullable: true, ...(description ? { description } : {}) });

export const PaginationResponse = Type.Object(
  {
    previous_key: nullableString('base64 key of the previous page (offset mode only)'),
    next_key: nullableString('base64 key of the next page; null when no row follows'),
    total: Type.String({ description: 'decimal; "-1" when the count timed out' }),
  },
  { $id: 'common.PaginationResponse' },
);

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

const Coin = Type.Object({ denom: Type.String(), amount: Type.String() });

export const Block = Type.Object(
  {
    chain_id: Type.String(),
    height: Type.String(),
    hash: Type.String({ description: 'upper-case hex, no 0x' }),
    block_time: Type.String({ description: 'ms since the previous block' }),
    timestamp: Type.String({ description: 'RFC 3339, whole seconds' }),
    gas_used: Type.String(),
    gas_wanted: Type.String(),
    tx_count: Type.String(),
    total_fee: Type.Array(Coin),
    proposer: Type.Object({
      moniker: Type.String({ description: '"" when the validator is not known to the indexer' }),
      identity: Type.String(),
      operator_address: Type.String(),
    }),
  },
  { $id: 'block.Block' },
);

export const BlocksResponse = Type.Object(
  { blocks: Type.Array(ref('block.Block')), pagination: ref('common.PaginationResponse') },
  { $id: 'block.BlocksResponse' },
);
export const BlockResponse = Type.Object({ block: ref('block.Block') }, { $id: 'block.BlockResponse' });

// value and attributes are always present ("" / []), as in the node's REST answer (docs/api.md §0.8).
const Attribute = Type.Object({
  key: Type.String(),
  index: Type.Optional(Type.Boolean({ description: 'present only when true' })),
  value: Type.String(),
});
const Event = Type.Object({ type: Type.String(), attributes: Type.Array(Attribute) });

export const Tx = Type.Object(
  {
    txhash: Type.String({ description: 'upper-case hex' }),
    height: Type.String(),
    codespace: Type.String(),
    code: Type.Integer(),
    data: Type.String({ description: 'upper-case hex' }),
    raw_log: Type.String(),
    logs: Type.Array(Type.Object({}, { additionalProperties: true })),
    info: Type.String(),
    gas_wanted: Type.String(),
    gas_used: Type.String(),
    tx: Type.Object(
      {
        body: Type.Object({}, { additionalProperties: true }),
        auth_info: Type.Object({}, { additionalProperties: true }),
        signatures: Type.Array(Type.String()),
      },
      { additionalProperties: true },
    ),
    timestamp: Type.String({ description: 'RFC 3339, nanoseconds' }),
    events: Type.Array(Event),
  },
  { $id: 'tx.Tx' },
);
export const TxsResponse = Type.Object(
  { txs: Type.Array(ref('tx.Tx')), pagination: ref('common.PaginationResponse') },
  { $id: 'tx.TxsResponse' },
);
export const TxResponse = Type.Object({ tx: ref('tx.Tx') }, { $id: 'tx.TxResponse' });

const EvmLog = Type.Object({
  address: Type.String(),
  topics: Type.Array(Type.String()),
  data: Type.String(),
  blockNumber: Type.String(),
  transactionHash: Type.String(),
  transactionIndex: Type.String(),
  blockHash: Type.String(),
  logIndex: Type.String(),
  removed: Type.Boolean(),
});

export const EvmTx = Type.Object(
  {
    blockHash: Type.String(),
    blockNumber: Type.String(),
    contractAddress: nullableString(),
    cumulativeGasUsed: Type.String(),
    effectiveGasPrice: Type.String(),
    from: Type.String(),
    gasUsed: Type.String(),
    logs: Type.Unsafe<unknown[] | null>({ type: 'array', items: EvmLog, nullable: true }),
    logsBloom: Type.String(),
    status: Type.String(),
    to: Type.String(),
    transactionHash: Type.String(),
    transactionIndex: Type.String(),
    type: Type.String(),
  },
  { $id: 'tx.EvmTx' },
);
export const EvmTxsResponse = Type.Object(
  { txs: Type.Array(ref('tx.EvmTx')), pagination: ref('common.PaginationResponse') },
  { $id: 'tx.EvmTxsResponse' },
);
export const EvmTxResponse = Type.Object({ tx: ref('tx.EvmTx') }, { $id: 'tx.EvmTxResponse' });

const evenHex = (what: string) => Type.String({ description: `${what}: 0x + even-length lower-case hex` });
export const EvmInternalTx = Type.Object(
  {
    height: Type.Integer(),
    hash: Type.String({ description: 'EVM tx hash, 0x + 64 lower-case hex' }),
    parent_index: Type.Integer({ description: '-1 for the top frame' }),
    index: Type.Integer({ description: 'depth-first position inside the tx (top frame 0)' }),
    type: Type.String({ description: 'CALL, STATICCALL, DELEGATECALL, CREATE, ...' }),
    from: Type.String({ description: '0x + 40 hex, "" when none' }),
    to: Type.String({ description: '0x + 40 hex, "" when none' }),
    input: evenHex('call data'),
    output: evenHex('return data ("0x" for the top frame)'),
    value: evenHex('wei'),
    gas: evenHex('gas'),
    gasUsed: evenHex('gas used'),
  },
  { $id: 'tx.EvmInternalTx' },
);
export const EvmInternalTxsResponse = Type.Object(
  { internal_txs: Type.Array(ref('tx.EvmInternalTx')), pagination: ref('common.PaginationResponse') },
  { $id: 'tx.EvmInternalTxsResponse' },
);

const NftCollection = Type.Object(
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
export const NftCollectionsResponse = Type.Object(
  { collections: Type.Array(ref('nft.Collection')), pagination: ref('common.PaginationResponse') },
  { $id: 'nft.CollectionsResponse' },
);
export const NftCollectionResponse = Type.Object(
  { collection: ref('nft.Collection') },
  { $id: 'nft.CollectionResponse' },
);
const Nft = Type.Object(
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
export const NftsResponse = Type.Object(
  { tokens: Type.Array(ref('nft.Nft')), pagination: ref('common.PaginationResponse') },
  { $id: 'nft.NftsResponse' },
);

const TokenHolder = Type.Object(
  {
    account: Type.String({ description: 'EVM: 0x + 40 lower-case hex; Move and Wasm: bech32' }),
    amount: Type.String({ description: "integer, in the denom's base unit" }),
  },
  { $id: 'richlist.TokenHolder' },
);
export const TokenHoldersResponse = Type.Object(
  { holders: Type.Array(ref('richlist.TokenHolder')), pagination: ref('common.PaginationResponse') },
  { $id: 'richlist.TokenHoldersResponse' },
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

export function ref(id: string): TSchema {
  return Type.Unsafe({ $ref: `${id}#` });
}

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
      'matched against collection names and origin names with only letters, marks and digits kept, lower-cased (substring); not percent-decoded',
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
