import { describe, expect, it } from 'vitest';
import { normaliseAccount } from '../../shared/address.js';
import type { AbciEvent } from './accounts.js';
import {
  AccountExtractionError,
  createAccountNormaliser,
  extractAccounts,
  extractEvmReceiptAccounts,
  faStoreKey,
  primaryStoresCreated,
  referencedFaStores,
} from './accounts.js';

const P = { prefix: 'init' };
const acc = (s: string) => normaliseAccount(s, 'init');
const SIGNER = 'init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz'; // 0xf39f…2266
const OTHER = 'init1wzvhjux9rqfdcwspp37srdgwp5tac7wg9ql75y';
const ev = (type: string, ...attrs: [string, string][]): AbciEvent => ({
  type,
  attributes: attrs.map(([key, value]) => ({ key, value, index: true })),
});

describe('extractAccounts (docs/ingest.md §6.2)', () => {
  it('takes whole init1 / 0x pieces of comma-separated values, untrimmed, and adds the signer last', () => {
    const events = [
      ev('transfer', ['recipient', OTHER], ['amount', '5uinit']),
      ev('x', ['list', `0x1,${SIGNER}, ${OTHER},0xZZ,0x${'a'.repeat(65)}`]),
    ];
    // " init1…" (leading space) is not taken; 0xZZ is not hex; 65 hex digits is too long.
    expect(extractAccounts(events, SIGNER, P)).toEqual([OTHER, acc('0x1'), SIGNER]);
  });

  it('hard-codes the init1 pattern even for another prefix (QUIRK), and skips what does not normalise', () => {
    const events = [ev('transfer', ['recipient', OTHER], ['hash', '0xabc'])];
    expect(extractAccounts(events, undefined, { prefix: 'mini' })).toEqual([
      normaliseAccount('0xabc', 'mini'),
    ]);
  });

  it('greps every 0x hex run (≤ 64 digits) inside Move event data, including hashes and numbers', () => {
    const data = JSON.stringify({
      object: '0x597cd3f', // short-form Move address
      collection: `0x${'1'.repeat(64)}`,
      long: `0x${'2'.repeat(70)}`, // first 64 digits taken, the rest is not another match
      amount: '100',
    });
    const events = [ev('move', ['type_tag', '0x1::object::TransferEvent'], ['data', data])];
    expect(extractAccounts(events, undefined, P)).toEqual([
      acc('0x597cd3f'),
      acc(`0x${'1'.repeat(64)}`),
      acc(`0x${'2'.repeat(64)}`),
    ]);
  });

  it('takes an EVM log address and padded topics k ≥ 1 (even amounts), never topic 0', () => {
    const padded = `0x000000000000000000000000${'ab'.repeat(20)}`;
    const amountTopic = `0x${'0'.repeat(62)}64`; // 100 — still "an address" (QUIRK)
    const log = JSON.stringify({
      address: '0xE1Ff7038eAAAF027031688E1535a055B2Bac2546',
      topics: [padded, padded, amountTopic, `0x${'f'.repeat(64)}`],
      data: '0x',
    });
    const events = [ev('evm', ['log', log])];
    expect(extractAccounts(events, undefined, P)).toEqual([
      acc('0xE1Ff7038eAAAF027031688E1535a055B2Bac2546'),
      acc(padded),
      acc(amountTopic),
    ]);
  });

  it('skips call.ret but reads call.contract', () => {
    const events = [
      ev('call', ['contract', '0x00000000000000000000000000000000000000f1'], ['ret', '0x1234']),
    ];
    expect(extractAccounts(events, undefined, P)).toEqual([acc('0xf1')]);
  });

  it('throws a typed error naming the event on a malformed EVM log', () => {
    const events = [ev('message', ['sender', OTHER]), ev('evm', ['log', '{not json'])];
    expect(() => extractAccounts(events, undefined, P)).toThrow(AccountExtractionError);
    expect(() => extractAccounts(events, undefined, P)).toThrow(/evm event #1 log/);
  });

  it('adds FA store owners only when the caller supplies them (intended lookup, a superset)', () => {
    const store = '0x0abc';
    const events = [
      ev(
        'move',
        ['type_tag', '0x1::fungible_asset::DepositEvent'],
        ['data', JSON.stringify({ store_addr: store, amount: '1' })],
      ),
    ];
    const plain = extractAccounts(events, undefined, P);
    expect(plain).toEqual([acc('0x0abc')]);
    const owners = new Map([[faStoreKey(store), OTHER]]);
    expect(extractAccounts(events, undefined, { ...P, storeOwners: owners })).toEqual([acc('0x0abc'), OTHER]);
    expect(referencedFaStores(events)).toEqual(['abc']);
  });

  it('fails on fungible_asset data that is not a JSON object, as the original does', () => {
    const events = [ev('move', ['type_tag', '0x1::fungible_asset::WithdrawEvent'], ['data', '"0x1"'])];
    expect(() => extractAccounts(events, undefined, P)).toThrow(AccountExtractionError);
  });

  it('handles absent values and attribute-less events', () => {
    const events: AbciEvent[] = [{ type: 'empty' }, { type: 'x', attributes: [{ key: 'k' }] }];
    expect(extractAccounts(events, SIGNER, P)).toEqual([SIGNER]);
  });

  it('gives the same answer with a memoised normaliser', () => {
    const normalise = createAccountNormaliser('init', 2);
    const events = [ev('x', ['a', `${OTHER},0x1,0x2,0x3`])];
    expect(extractAccounts(events, SIGNER, { ...P, normalise })).toEqual(extractAccounts(events, SIGNER, P));
    expect(extractAccounts(events, SIGNER, { ...P, normalise })).toEqual(extractAccounts(events, SIGNER, P));
  });
});

describe('primaryStoresCreated', () => {
  it('reads owner and store of PrimaryStoreCreatedEvent', () => {
    const data = JSON.stringify({ owner_addr: '0xf39f', store_addr: '0x00beef', metadata_addr: '0x1' });
    const events = [
      ev('move', ['type_tag', '0x1::primary_fungible_store::PrimaryStoreCreatedEvent'], ['data', data]),
    ];
    expect(primaryStoresCreated(events)).toEqual([
      { storeKey: 'beef', storeAddr: '0x00beef', ownerAddr: '0xf39f' },
    ]);
  });
});

describe('extractEvmReceiptAccounts (docs/ingest.md §6.3)', () => {
  const padded = `0x000000000000000000000000${'cd'.repeat(20)}`;
  it('takes from, to, contractAddress, log addresses and padded topics', () => {
    const receipt = {
      from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      to: null,
      contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      logs: [{ address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', topics: [padded, padded] }],
    };
    expect(extractEvmReceiptAccounts(receipt, 'init')).toEqual([
      SIGNER,
      acc('0x5FbDB2315678afecb367f032d93F642f64180aa3'),
      acc(padded),
    ]);
  });

  it('throws, naming the field, on an address that does not normalise', () => {
    expect(() => extractEvmReceiptAccounts({ from: '0xnothex' }, 'init')).toThrow(/from/);
  });
});
