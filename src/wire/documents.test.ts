import type { TObject } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { BLOCK_KEY_ORDER, Block, renderBlock } from './block.js';
import { EVM_INTERNAL_TX_KEY_ORDER, EvmInternalTx, renderEvmInternalTxJson } from './evm-internal-tx.js';
import { EVM_LOG_KEY_ORDER, EVM_TX_KEY_ORDER, EvmTx, renderEvmTxJson } from './evm-tx.js';
import { NFT_COLLECTION_KEY_ORDER, NftCollection, renderCollection } from './nft-collection.js';
import { NFT_TOKEN_KEY_ORDER, Nft } from './nft-token.js';
import { PaginationResponse, listEnvelopeText } from './pagination.js';
import { HOLDER_KEY_ORDER, TokenHolder, renderHolder } from './rich-list-holder.js';
import { TX_KEY_ORDER, Tx, renderTxResponseJson } from './tx.js';

/** One rendering of each document, from a small domain value. */
const rendered = {
  tx: renderTxResponseJson({
    hash: 'AB',
    height: 1,
    result: { events: [{ type: 'message', attributes: [{ key: 'k' }] }] },
    restTxJson: '{"body":{},"auth_info":{},"signatures":[]}',
    blockTime: '2025-06-01T12:00:00Z',
  }),
  evmTx: renderEvmTxJson({
    ...Object.fromEntries(EVM_TX_KEY_ORDER.map((k) => [k, '0x1'])),
    logs: [Object.fromEntries(EVM_LOG_KEY_ORDER.map((k) => [k, '0x2']))],
  }),
  internalTx: renderEvmInternalTxJson(
    { type: 'CALL' },
    { height: 1, txHash: '0xab', index: 0, parentIndex: -1, fromHex: '', toHex: '' },
  ),
  block: renderBlock(
    {
      height: 1,
      hash: 'AB',
      blockTimeMs: 1,
      timestamp: '2025-06-01T12:00:00Z',
      gasUsed: 0,
      gasWanted: 0,
      txCount: 0,
      totalFee: '[]',
      proposer: 'initvaloper1x',
      moniker: '',
    },
    'chain-1',
  ),
  collection: renderCollection(
    {
      addr: 'ab',
      height: 1,
      ts: '2025-06-01T12:00:00.5',
      name: 'n',
      originName: '',
      creator: null,
      nftCount: 0,
    },
    () => '',
  ),
  holder: renderHolder('init1x', '5'),
};

const keysOf = (text: string) => Object.keys(JSON.parse(text) as object);
const schemaKeys = (schema: TObject) => Object.keys(schema.properties);

describe('each document: schema, key order and renderer agree', () => {
  it.each([
    ['tx', Tx, TX_KEY_ORDER, rendered.tx],
    ['EVM tx', EvmTx, EVM_TX_KEY_ORDER, rendered.evmTx],
    ['EVM internal tx', EvmInternalTx, EVM_INTERNAL_TX_KEY_ORDER, rendered.internalTx],
    ['block', Block, BLOCK_KEY_ORDER, rendered.block],
    ['NFT collection', NftCollection, NFT_COLLECTION_KEY_ORDER, rendered.collection],
    ['rich-list holder', TokenHolder, HOLDER_KEY_ORDER, rendered.holder],
  ] as const)('%s', (_name, schema, keyOrder, text) => {
    expect(schemaKeys(schema)).toEqual([...keyOrder]);
    expect(keysOf(text)).toEqual([...keyOrder]);
  });

  it('EVM logs keep their key order', () => {
    const { logs } = JSON.parse(rendered.evmTx) as { logs: object[] };
    expect(Object.keys(logs[0]!)).toEqual([...EVM_LOG_KEY_ORDER]);
  });

  it('the NFT token schema lists the keys the generated columns write, in their order', () => {
    // The text itself is written by PostgreSQL (src/store/readers/nft-tokens.test.ts compares it).
    expect(schemaKeys(Nft)).toEqual([...NFT_TOKEN_KEY_ORDER]);
  });

  it('the list envelope writes pagination keys in schema order, whatever order it is given', () => {
    const { head, tail } = listEnvelopeText('txs', { total: '3', next_key: null, previous_key: 'a' });
    const envelope = JSON.parse(`${head}${tail}`) as { pagination: object };
    expect(Object.keys(envelope.pagination)).toEqual(schemaKeys(PaginationResponse));
  });
});
