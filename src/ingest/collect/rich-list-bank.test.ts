import { describe, expect, it } from 'vitest';
import { loadRealTxSamples } from '../../../test/fixtures/decode/samples.js';
import { accountBytesFromString } from '../../shared/address.js';
import type { AbciEvent } from '../../node/types.js';
import { bankDeltas, fungibleAssetDeltas, parseCoins } from './rich-list-bank.js';

const samples = new Map(loadRealTxSamples().map((s) => [s.id, s.response]));
/** The events of a real REST tx_response (chain-samples/real-tx-decoder), as block_results has them. */
function eventsOf(id: string): AbciEvent[] {
  const response = samples.get(id);
  if (!response) throw new Error(`no sample ${id}`);
  return response.events.map((e) => ({
    type: e.type,
    attributes: (e.attributes ?? []).map((a) => ({
      key: a.key,
      value: a.value ?? '',
      index: a.index ?? false,
    })),
  }));
}
const hex = (address: string) => Buffer.from(accountBytesFromString(address, 'init')).toString('hex');
const event = (type: string, attrs: Record<string, string>): AbciEvent => ({
  type,
  attributes: Object.entries(attrs).map(([key, value]) => ({ key, value, index: false })),
});

const L2 = 'l2/fb936ffef4eb4019d82941992cc09ae2788ce7197fcb08cb00c4fe6f5e79184e';
const IBC = 'ibc/37A3FB4FED4CA04ED6D9E5DA36C6D27248645F0E22F585576A1488B8A89C5A50';
const FEE_COLLECTOR = 'init17xpfvakm2amg962yls6f84z3kell8c5l70rnql';
const OPCHILD = 'init1gz9n8jnu9fgqw7vem9ud67gqjk5q4m2w0aejne';

describe('parseCoins', () => {
  it('reads multi-coin amounts, ibc/, l2/ and factory-style denoms, and leaves out what is not a coin', () => {
    expect(parseCoins(`10uinit,5${IBC}`)).toEqual([
      { denom: 'uinit', amount: 10n },
      { denom: IBC, amount: 5n },
    ]);
    expect(parseCoins('919ueth,1000000uinit,1024uusdc').map((c) => c.denom)).toEqual([
      'ueth',
      'uinit',
      'uusdc',
    ]);
    expect(parseCoins('0uinit')).toEqual([{ denom: 'uinit', amount: 0n }]);
    expect(parseCoins('')).toEqual([]);
    expect(parseCoins('uinit,-5uinit,5,12 uinit')).toEqual([]);
  });
});

describe('bankDeltas (Wasm bank events)', () => {
  it('moo-1 MsgSend: the fee to the fee collector and the send, sender debited and recipients credited', () => {
    const sender = 'init1yrs3xrph7pj6napfud94t8zr9ldkcz4z7dvyx9';
    expect(bankDeltas(eventsOf('cosmos/wasm/bank#mockMsgSendWasm'), 'init')).toEqual([
      { asset: L2, account: hex(sender), amount: -5271n },
      { asset: L2, account: hex(FEE_COLLECTOR), amount: 5271n },
      { asset: L2, account: hex(sender), amount: -41n },
      { asset: L2, account: hex('init1jwte7rs3p5clnmn73at9ft2s3ad246dvtec8uh'), amount: 41n },
    ]);
  });

  it('a self-transfer debits and credits the same account', () => {
    const self = hex('init1kw2unuhgfa6mz6r0ehrzlr9k9ftjk7pql8u5fm');
    const deltas = bankDeltas(eventsOf('cosmos/wasm/bank#mockMsgSendSelfTransferWasm'), 'init');
    expect(deltas.filter((d) => d.account === self).map((d) => d.amount)).toEqual([-4721n, -10000n, 10000n]);
  });

  it('a multi-coin transfer moves every coin', () => {
    const sender = 'init1h8lpl5qcs5k5nngxvdum5v20jnww2lckg3n2ta';
    const recipient = 'init1926svvgllca2lzr3lp98h29xshsztka6vua3wf';
    const deltas = bankDeltas(eventsOf('cosmos/move/bank#mockMsgSendWithMultipleCoins'), 'init');
    expect(deltas.filter((d) => d.account === hex(recipient))).toEqual([
      { asset: 'ueth', account: hex(recipient), amount: 919n },
      { asset: 'uinit', account: hex(recipient), amount: 1000000n },
      { asset: 'uusdc', account: hex(recipient), amount: 1024n },
    ]);
    expect(deltas.filter((d) => d.account === hex(sender)).map((d) => [d.asset, d.amount])).toEqual([
      ['uinit', -7500n],
      ['ueth', -919n],
      ['uinit', -1000000n],
      ['uusdc', -1024n],
    ]);
  });

  it('coinbase credits the minter and burn debits the burner; a constructed ibc/ coin keeps its spelling', () => {
    const user = 'init1nyky4mrxx69l4zpqtdldkk9rlf9grlnn77djlh';
    const events = [
      event('coinbase', { minter: user, amount: `10uinit,5${IBC}` }),
      event('burn', { burner: user, amount: '3uinit' }),
    ];
    expect(bankDeltas(events, 'init')).toEqual([
      { asset: 'uinit', account: hex(user), amount: 10n },
      { asset: IBC, account: hex(user), amount: 5n },
      { asset: 'uinit', account: hex(user), amount: -3n },
    ]);
  });

  it('op-init deposit: the opchild module account mints and pays out to the recipient', () => {
    const events = eventsOf('protocols/op-init/finalize-token-deposit#mockMsgFinalizeTokenDepositSuccess');
    const denom = 'l2/8f73cfaf153520f511b4fc0bd71d60d64b4e19eff04a350e642718a3c1ab3b06';
    const recipient = hex('init1z6jxlwyuwy4j3zdh08t4tzsnnvkm8g8m5f088g');
    expect(bankDeltas(events, 'init')).toEqual([
      { asset: denom, account: hex(OPCHILD), amount: 1000000n },
      { asset: denom, account: hex(OPCHILD), amount: -1000000n },
      { asset: denom, account: recipient, amount: 1000000n },
    ]);
  });

  it('zero amounts give zero deltas (the pair is touched); addresses that are not accounts and missing amounts give none', () => {
    const user = 'init1nyky4mrxx69l4zpqtdldkk9rlf9grlnn77djlh';
    expect(bankDeltas([event('coinbase', { minter: user, amount: '0uinit' })], 'init')).toEqual([
      { asset: 'uinit', account: hex(user), amount: 0n },
    ]);
    // The sample's hand-made addresses are not bech32.
    expect(bankDeltas(eventsOf('cosmos/wasm/bank#mockMsgSendMultiCoinWasm'), 'init')).toEqual([]);
    expect(bankDeltas([event('transfer', { sender: user, recipient: user })], 'init')).toEqual([]);
    expect(bankDeltas([event('coin_spent', { spender: user, amount: '5uinit' })], 'init')).toEqual([]);
  });
});

const FA = '0x1::fungible_asset::';
const UINIT_METADATA = '0x8e4733bdabcf7d4afc3d14f0dd46c9bf52fb0fce9e4b996c939e195b8bc891d9';
const moveEvent = (tag: string, data: unknown): AbciEvent =>
  event('move', { type_tag: `${FA}${tag}`, data: JSON.stringify(data) });
const withdraw = (amount: string) =>
  moveEvent('WithdrawEvent', { store_addr: '0x1234', metadata_addr: UINIT_METADATA, amount });
const deposit = (amount: string) =>
  moveEvent('DepositEvent', { store_addr: '0x5678', metadata_addr: UINIT_METADATA, amount });
const owner = (tag: 'WithdrawOwnerEvent' | 'DepositOwnerEvent', address: string) =>
  moveEvent(tag, { owner: address });

describe('fungibleAssetDeltas (Move)', () => {
  it('Initia MsgSend with owner events: the fee and the send, each owner debited or credited', () => {
    const sender = '802629b46ade23c857742aed09233e44e7bfeb90';
    expect(fungibleAssetDeltas(eventsOf('cosmos/move/bank#mockMsgSendWithOwnerEvent'), 'init')).toEqual([
      { asset: UINIT_METADATA, account: sender, amount: -12000n },
      { asset: UINIT_METADATA, account: 'f1829676db577682e944fc3493d451b67ff3e29f', amount: 12000n },
      { asset: UINIT_METADATA, account: sender, amount: -34365658000n },
      { asset: UINIT_METADATA, account: '32ea8470eb03052a6d6f37d2b6cf80d61c7e98ff', amount: 34365658000n },
    ]);
  });

  it('withdraw and deposit events without owner events (older Move, minitswap receive) give nothing', () => {
    expect(fungibleAssetDeltas(eventsOf('cosmos/move/bank#mockMsgSendWithSingleCoin'), 'init')).toEqual([]);
    const received = eventsOf('protocols/ibc/move/receive-ft-move#mockFtReceiveMoveFromL2Transaction');
    expect(fungibleAssetDeltas(received, 'init')).toEqual([]);
  });

  it('pairs only an event with the owner event of its own kind, right after it', () => {
    const a = '0x' + 'aa'.repeat(20);
    expect(fungibleAssetDeltas([withdraw('5'), owner('DepositOwnerEvent', a)], 'init')).toEqual([]);
    expect(fungibleAssetDeltas([deposit('5'), owner('WithdrawOwnerEvent', a)], 'init')).toEqual([]);
    expect(fungibleAssetDeltas([withdraw('5'), deposit('5'), owner('DepositOwnerEvent', a)], 'init')).toEqual(
      [{ asset: UINIT_METADATA, account: 'aa'.repeat(20), amount: 5n }],
    );
    expect(fungibleAssetDeltas([owner('WithdrawOwnerEvent', a), withdraw('5')], 'init')).toEqual([]);
  });

  it('keeps zero amounts, skips amounts and owners it cannot read', () => {
    const a = '0x' + 'aa'.repeat(20);
    const m = '0x' + 'bb'.repeat(20);
    const events = [
      withdraw('7'),
      owner('WithdrawOwnerEvent', m),
      deposit('7'),
      owner('DepositOwnerEvent', a),
      deposit('0'),
      owner('DepositOwnerEvent', a),
      deposit('-1'),
      owner('DepositOwnerEvent', a),
      deposit('1.5'),
      owner('DepositOwnerEvent', a),
      deposit('9'),
      owner('DepositOwnerEvent', 'not an address'),
      event('move', { type_tag: `${FA}DepositEvent`, data: '{not json' }),
      owner('DepositOwnerEvent', a),
    ];
    expect(fungibleAssetDeltas(events, 'init')).toEqual([
      { asset: UINIT_METADATA, account: 'bb'.repeat(20), amount: -7n },
      { asset: UINIT_METADATA, account: 'aa'.repeat(20), amount: 7n },
      { asset: UINIT_METADATA, account: 'aa'.repeat(20), amount: 0n },
    ]);
  });
});
