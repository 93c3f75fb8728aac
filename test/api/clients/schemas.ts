import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { z } from 'zod';

/**
 * What two real clients require of this API's answers, written as our own zod schemas from a
 * reading of their code (none of it copied). Each schema names the client file it comes from:
 *   Celatone = alleslabs/celatone-frontend (parses every answer with zod and drops the whole page
 *     when one field fails), InterwovenKit = initia-labs/interwovenkit (TypeScript types only: a
 *     missing field is `undefined` at run time, so only the fields it reads are required here).
 * Objects are not strict: both clients ignore fields they do not know.
 */

// ---------------------------------------------------------------- shared pieces (Celatone)

/** src/lib/types/rest.ts zPagination: next_key string or null (not absent), total coerced to a number. */
export const pagination = z.object({
  next_key: z.string().nullable(),
  total: z.coerce.number(),
});

/**
 * src/lib/types/time.ts zUtcDate: an ISO date-time in UTC ('Z'), or one without a zone that
 * parses once 'Z' is appended; any number of fraction digits.
 */
export const utcDate = z
  .string()
  .refine((text) => z.iso.datetime().safeParse(text.endsWith('Z') ? text : `${text}Z`).success, {
    message: 'not a UTC ISO date-time',
  });

/** src/lib/types/hex.ts zHexBig: 0x and at least one digit (BigInt('0x') throws). */
export const hexBig = z.string().regex(/^0x[0-9a-fA-F]+$/);

const coin = z.object({ denom: z.string(), amount: z.string() });

// ---------------------------------------------------------------- Cosmos txs (Celatone)

/**
 * src/lib/services/types/tx.ts zModeInfoSingle: a SignMode name or number that the enum maps to
 * something truthy (so not SIGN_MODE_UNSPECIFIED = 0), or minievm's 9999.
 */
const signMode = z.custom<string | number>(
  (mode) =>
    mode === 9999 ||
    ((typeof mode === 'string' || typeof mode === 'number') &&
      Boolean((SignMode as unknown as Record<string, unknown>)[mode])),
  { message: 'sign mode the client does not know' },
);
const modeInfoSingle = z.object({ single: z.object({ mode: signMode }) });
const pubkeySingle = z.object({ '@type': z.string(), key: z.string() });
const signerInfo = z.union([
  z.object({ sequence: z.string(), mode_info: modeInfoSingle, public_key: pubkeySingle }),
  z.object({
    sequence: z.string(),
    mode_info: z.object({
      multi: z.object({
        bitarray: z.object({ elems: z.string(), extra_bits_stored: z.number() }),
        mode_infos: z.array(modeInfoSingle),
      }),
    }),
    public_key: z.object({ '@type': z.string(), public_keys: z.array(pubkeySingle), threshold: z.number() }),
  }),
]);

/** src/lib/services/types/tx.ts zEventAttribute: `value` may be null but must be present. */
const eventAttribute = z.object({
  key: z.string(),
  value: z.string().nullable(),
  index: z.boolean().optional(),
});
export const cosmosEvent = z.object({ type: z.string(), attributes: z.array(eventAttribute) });

/**
 * src/lib/services/types/tx.ts zRawTxResponse + zTx: every field below is required. The client
 * also reads `auth_info.signer_infos[0].public_key` unconditionally (zTxsResponseItemFromRest),
 * so at least one signer info (checked beside this schema, see celatone-txs.ts).
 */
export const celatoneTxResponse = z.object({
  code: z.number(),
  codespace: z.string(),
  data: z.string(),
  events: z.array(cosmosEvent),
  gas_used: z.string(),
  gas_wanted: z.string(),
  height: z.string(),
  info: z.string(),
  logs: z.array(z.object({ events: z.array(cosmosEvent), log: z.string(), msg_index: z.number() })),
  raw_log: z.string(),
  timestamp: utcDate,
  txhash: z.string(),
  tx: z.object({
    auth_info: z.object({
      fee: z.object({ amount: z.array(coin), gas_limit: z.string(), granter: z.string(), payer: z.string() }),
      signer_infos: z.array(signerInfo),
    }),
    body: z.object({
      extension_options: z.array(z.looseObject({ '@type': z.string() })),
      memo: z.string(),
      messages: z.array(z.looseObject({ '@type': z.string() })),
      non_critical_extension_options: z.array(z.looseObject({ '@type': z.string() })),
      timeout_height: z.string(),
    }),
    signatures: z.array(z.string()),
  }),
});
export type CelatoneTx = z.infer<typeof celatoneTxResponse>;

/** src/lib/services/types/tx.ts zTxsResponseSequencer / zBlockTxsResponseSequencer. */
export const celatoneTxs = z.object({ pagination, txs: z.array(celatoneTxResponse) });
/** src/lib/services/types/tx.ts zTxsByHashResponseSequencer. */
export const celatoneTxByHash = z.object({ tx: celatoneTxResponse });

// ---------------------------------------------------------------- blocks (Celatone)

/** src/lib/services/types/block.ts zBlockSequencer (numbers may come as strings: coerced). */
export const celatoneBlock = z.object({
  hash: z.string(),
  height: z.coerce.number(),
  timestamp: utcDate,
  gas_used: z.coerce.number(),
  gas_wanted: z.coerce.number(),
  tx_count: z.coerce.number(),
  proposer: z
    .object({ operator_address: z.string().nullish(), moniker: z.string(), identity: z.string() })
    .nullable(),
});
/** src/lib/services/types/block.ts zBlocksResponseSequencer. */
export const celatoneBlocks = z.object({ blocks: z.array(celatoneBlock), pagination });
/** src/lib/services/types/block.ts zBlockTimeAverageSequencer. */
export const celatoneAvgBlockTime = z.object({ avg_block_time: z.number().nonnegative() });

// ---------------------------------------------------------------- NFTs (Celatone)

/**
 * src/lib/services/types/nft.ts zNftSequencer as the explorer has it since alleslabs/celatone-frontend
 * pull request 1417: the owner as `owner` (rollytics, docs/api.md §5.7) or `owner_addr` (an older
 * rollytics name), at least one of them; `nft.description` defaults to "" when absent; `nft.uri`
 * is required.
 */
export const celatoneToken = z
  .object({
    collection_addr: z.string(),
    collection_name: z.string(),
    nft: z.object({ description: z.string().default(''), token_id: z.string(), uri: z.string() }),
    object_addr: z.string(),
    owner: z.string().optional(),
    owner_addr: z.string().optional(),
  })
  .refine((token) => token.owner !== undefined || token.owner_addr !== undefined, {
    message: 'owner or owner_addr is required',
  });
/** src/lib/services/types/nft.ts zNftsResponseSequencer / zNftsByAccountResponseSequencer. */
export const celatoneTokens = z.object({ pagination, tokens: z.array(celatoneToken) });

/**
 * src/lib/services/types/nft-collection.ts zCollectionSequencer: `description` and `uri` default
 * to "" when absent (docs/api.md §5.6 has neither).
 */
export const celatoneCollection = z.object({
  collection: z.object({
    creator: z.string(),
    description: z.string().default(''),
    name: z.string(),
    nfts: z.object({ handle: z.string(), length: z.coerce.number() }),
    uri: z.string().default(''),
  }),
  object_addr: z.string(),
});
/** src/lib/services/types/nft-collection.ts zCollectionsResponseSequencer (and by account). */
export const celatoneCollections = z.object({ collections: z.array(celatoneCollection), pagination });
/** src/lib/services/types/nft-collection.ts zCollectionByCollectionAddressResponseSequencer. */
export const celatoneCollectionByAddr = z.object({ collection: celatoneCollection });

/**
 * The token and collection fields Celatone reads that docs/api.md §5.6/§5.7 also define: the walks
 * check these against the simulator; the full schemas above are checked on their own.
 */
export const celatoneTokenShared = z.object({
  collection_addr: z.string(),
  collection_name: z.string(),
  nft: z.object({ token_id: z.string(), uri: z.string() }),
  object_addr: z.string(),
});
export const celatoneTokensShared = z.object({ pagination, tokens: z.array(celatoneTokenShared) });
export const celatoneCollectionShared = z.object({
  collection: z.object({
    creator: z.string(),
    name: z.string(),
    nfts: z.object({ handle: z.string(), length: z.coerce.number() }),
  }),
  object_addr: z.string(),
});
export const celatoneCollectionByAddrShared = z.object({ collection: celatoneCollectionShared });
export const celatoneCollectionsShared = z.object({
  collections: z.array(celatoneCollectionShared),
  pagination,
});

// ---------------------------------------------------------------- EVM (Celatone)

/** src/lib/services/types/tx.ts zTxReceiptJsonRpcLog. */
const receiptLog = z.object({
  address: z.string(),
  blockHash: z.string(),
  blockNumber: hexBig,
  data: z.string(),
  logIndex: hexBig,
  removed: z.boolean(),
  topics: z.array(z.string()),
  transactionHash: z.string(),
  transactionIndex: hexBig,
});
/** src/lib/services/types/evm/tx.ts zEvmTxSequencer: note `to` is required and not nullable. */
export const celatoneEvmTx = z.object({
  blockHash: z.string(),
  blockNumber: z.string(),
  contractAddress: z.string().nullable(),
  cumulativeGasUsed: hexBig,
  effectiveGasPrice: hexBig,
  from: z.string(),
  gasUsed: hexBig,
  logs: z.array(receiptLog),
  logsBloom: z.string(),
  status: z.string(),
  to: z.string(),
  transactionHash: z.string(),
  transactionIndex: z.string(),
  type: z.string(),
});
/** src/lib/services/types/evm/tx.ts zEvmTxsResponseSequencer / zEvmTxResponseSequencer. */
export const celatoneEvmTxs = z.object({ pagination, txs: z.array(celatoneEvmTx) });
export const celatoneEvmTxByHash = z.object({ tx: celatoneEvmTx });

/** src/lib/services/types/evm/internal-tx.ts zEvmInternalTxSequencer (`value` "0x" is dropped). */
export const celatoneInternalTx = z.object({
  from: z.string(),
  gas: hexBig,
  gasUsed: hexBig,
  hash: z.string(),
  height: z.number(),
  index: z.number(),
  input: z.string(),
  output: z.string(),
  parent_index: z.number(),
  to: z.string(),
  type: z.string(),
  value: z.union([z.literal('0x'), hexBig]).optional(),
});
export const celatoneInternalTxs = z.object({ internal_txs: z.array(celatoneInternalTx), pagination });

// ---------------------------------------------------------------- rich list (Celatone)

/** src/lib/services/types/richlist.ts zRichlistResponseSequencer. */
export const celatoneRichList = z.object({
  holders: z.array(z.object({ account: z.string(), amount: z.string() })),
  pagination,
});

// ---------------------------------------------------------------- InterwovenKit (fields it reads)

/** packages/interwovenkit-react/src/data/pagination.ts Paginated: `pagination.next_key` ends a walk. */
const iwkPagination = z.object({ next_key: z.string().nullable() }).nullable();

/**
 * src/pages/wallet/tabs/activity/queries.ts TxItem, as ActivityItem/ActivityChanges and
 * src/data/tx.ts useLastFeeDenom read it.
 */
export const iwkTxItem = z.object({
  code: z.number(),
  txhash: z.string(),
  timestamp: z.string().refine((t) => !Number.isNaN(new Date(t).getTime()), 'not a date'),
  events: z.array(
    z.object({ type: z.string(), attributes: z.array(z.object({ key: z.string(), value: z.string() })) }),
  ),
  tx: z.object({
    body: z.object({ memo: z.string(), messages: z.array(z.looseObject({ '@type': z.string() })) }),
    auth_info: z.object({
      fee: z.object({ amount: z.array(coin) }),
      signer_infos: z.array(z.object({ public_key: z.object({ '@type': z.string(), key: z.string() }) })),
    }),
  }),
});
export const iwkTxs = z.object({ pagination: iwkPagination, txs: z.array(iwkTxItem) });

/** src/pages/wallet/tabs/nft/queries.ts NftResponse (description is only displayed: optional). */
export const iwkToken = z.object({
  collection_addr: z.string(),
  collection_name: z.string(),
  nft: z.object({ token_id: z.string(), uri: z.string(), description: z.string().optional() }),
  object_addr: z.string(),
});
export const iwkTokens = z.object({ pagination: iwkPagination, tokens: z.array(iwkToken) });

/**
 * src/pages/wallet/tabs/nft/queries.ts CollectionResponse (object_addr becomes the
 * collection_addr filter of the token walk) and the IBC transfer code's
 * `collection.collection.creator`.
 */
export const iwkCollection = z.object({
  object_addr: z.string(),
  collection: z.object({ name: z.string(), creator: z.string() }),
});
export const iwkCollectionByAddr = z.object({ collection: iwkCollection });
export const iwkCollections = z.object({ pagination: iwkPagination, collections: z.array(iwkCollection) });
