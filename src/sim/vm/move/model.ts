import { event, type SimEvent } from '../../chain/events.js';
import { coinMetadata, primaryStore, shortHex } from './address.js';
import type { Coin } from '../../types.js';

/**
 * Move-side event templates (real sequences in chain-samples/real-tx-decoder/cosmos/move/*):
 * every coin movement is a `coin::sudo_transfer` execute plus fungible-asset Withdraw/Deposit
 * events, each followed by its owner event (chains after ~Aug 2025), and the store creation
 * pair when the recipient's primary store is new.
 */
export interface MoveAddressBook {
  metadata(denom: string): Uint8Array;
  store(owner: Uint8Array, denom: string): Uint8Array;
}

export function createMoveAddressBook(): MoveAddressBook {
  const metadataCache = new Map<string, Uint8Array>();
  const storeCache = new WeakMap<Uint8Array, Map<string, Uint8Array>>();
  const metadata = (denom: string): Uint8Array => {
    let m = metadataCache.get(denom);
    if (!m) metadataCache.set(denom, (m = coinMetadata(denom)));
    return m;
  };
  return {
    metadata,
    store(owner, denom) {
      // Keyed by the owner's bytes object: keyring addresses are shared, fresh ones die young.
      let byDenom = storeCache.get(owner);
      if (!byDenom) storeCache.set(owner, (byDenom = new Map()));
      let s = byDenom.get(denom);
      if (!s) byDenom.set(denom, (s = primaryStore(owner, metadata(denom))));
      return s;
    },
  };
}

export function moveEvent(typeTag: string, data: string): SimEvent {
  return event('move', [
    ['type_tag', typeTag],
    ['data', data],
  ]);
}

export interface FaTransfer {
  from: Uint8Array;
  to: Uint8Array;
  coin: Coin;
  /** The recipient's primary store does not exist yet. */
  createsStore: boolean;
}

/** Withdraw/Deposit (+owner events, + store creation) for one coin; no execute event. */
export function faMoveEvents(book: MoveAddressBook, t: FaTransfer): SimEvent[] {
  const meta = shortHex(book.metadata(t.coin.denom));
  const fromStore = shortHex(book.store(t.from, t.coin.denom));
  const toStore = shortHex(book.store(t.to, t.coin.denom));
  const out: SimEvent[] = [];
  if (t.createsStore) {
    const owner = shortHex(t.to);
    out.push(
      moveEvent('0x1::object::CreateEvent', `{"object":"${toStore}","owner":"${owner}","version":"1"}`),
      moveEvent(
        '0x1::primary_fungible_store::PrimaryStoreCreatedEvent',
        `{"owner_addr":"${owner}","store_addr":"${toStore}","metadata_addr":"${meta}"}`,
      ),
    );
  }
  out.push(
    moveEvent(
      '0x1::fungible_asset::WithdrawEvent',
      `{"store_addr":"${fromStore}","metadata_addr":"${meta}","amount":"${t.coin.amount}"}`,
    ),
    moveEvent('0x1::fungible_asset::WithdrawOwnerEvent', `{"owner":"${shortHex(t.from)}"}`),
    moveEvent(
      '0x1::fungible_asset::DepositEvent',
      `{"store_addr":"${toStore}","metadata_addr":"${meta}","amount":"${t.coin.amount}"}`,
    ),
    moveEvent('0x1::fungible_asset::DepositOwnerEvent', `{"owner":"${shortHex(t.to)}"}`),
  );
  return out;
}

export function executeEvent(sender: string, moduleAddr: string, moduleName: string, fn: string): SimEvent {
  return event('execute', [
    ['sender', sender],
    ['module_addr', moduleAddr],
    ['module_name', moduleName],
    ['function_name', fn],
  ]);
}

/** The bank keeper's `coin::sudo_transfer` for one coin, as MsgSend and fee deduction emit it. */
export function sudoTransferEvents(book: MoveAddressBook, t: FaTransfer): SimEvent[] {
  return [executeEvent(`0x1,${shortHex(t.from)}`, '0x1', 'coin', 'sudo_transfer'), ...faMoveEvents(book, t)];
}
