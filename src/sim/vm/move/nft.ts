import { nftReceivePacket } from '../common/nft-receive-packet.js';
import { event, type SimEvent } from '../../chain/events.js';
import { ibcClassName, recvPacketParts } from '../common/ibc.js';
import { sha256, type SimAccount } from '../../chain/keys.js';
import { collectionAddress, nftAddress, pad32, shortHex } from './address.js';
import { executeEvent, moveEvent } from './model.js';
import { bcs, concatBytes, msgExecute, MSG_EXECUTE } from '../../chain/msgs.js';
import {
  collectionCreator,
  collectionName,
  ESCROW,
  IBC,
  type Holder,
  type NftOp,
  type NftPlanContext,
} from '../../chain/nft-lifecycle.js';
import type { NftOffer } from '../../chain/nft-market.js';
import type { NftTxParts } from '../../chain/plan.js';
import type { EncodedMsg } from '../../chain/tx-build.js';

const MOVE_STD = Uint8Array.of(1);

export interface MoveNftContext {
  plan: NftPlanContext;
  accounts: SimAccount[];
}

/** A marketplace-like object that NFT "sends" deliver to (32-byte address). */
export const MOVE_ESCROW = new Uint8Array(sha256('rollup-sim/move/escrow'));
/** The account that publishes the `marketplace` module offers are made through. */
export const MOVE_MARKET = new Uint8Array(sha256('rollup-sim/move/market'));

export function moveHolderAddress(ctx: MoveNftContext, h: Holder): Uint8Array {
  return h === ESCROW ? MOVE_ESCROW : ctx.accounts[h]!.address;
}

export function moveCollectionAddress(ctx: MoveNftContext, c: number): Uint8Array {
  return collectionAddress(ctx.accounts[collectionCreator(ctx.plan, c)]!.address, collectionName(c));
}

export function moveNftAddress(ctx: MoveNftContext, c: number, tokenId: string): Uint8Array {
  return nftAddress(ctx.accounts[collectionCreator(ctx.plan, c)]!.address, collectionName(c), tokenId);
}

export const moveIbcClassName = (): string => ibcClassName(IBC.classIdOnL1);
export const moveIbcCollectionAddress = (): Uint8Array => collectionAddress(MOVE_STD, moveIbcClassName());
export const moveIbcNftAddress = (tokenId: string): Uint8Array =>
  nftAddress(MOVE_STD, moveIbcClassName(), tokenId);

function call(
  signer: SimAccount,
  moduleName: string,
  fn: string,
  args: Uint8Array[],
  typeArgs: string[] = [],
): EncodedMsg {
  return msgExecute({
    sender: signer.bech32,
    moduleAddress: '0x1',
    moduleName,
    functionName: fn,
    typeArgs,
    args,
  });
}

const messageEvent = (signer: SimAccount): SimEvent =>
  event('message', [
    ['action', MSG_EXECUTE],
    ['sender', signer.bech32],
    ['module', 'move'],
  ]);

/** `create_collection` by `creator` (a user via simple_nft, 0x1 via initia_nft for IBC classes). */
function collectionCreatedEvents(creator: string, module: string, coll: string, name: string): SimEvent[] {
  return [
    executeEvent(creator, '0x1', module, 'create_collection'),
    moveEvent('0x1::object::CreateEvent', `{"object":"${coll}","owner":"${creator}","version":"1"}`),
    moveEvent(
      '0x1::collection::CreateCollectionEvent',
      `{"collection":"${coll}","creator":"${creator}","name":"${name}"}`,
    ),
  ];
}

/** `mint` called by `sender`: the NFT object is created owned by `creator`, then moved to `to` if that differs. */
function mintedEvents(m: {
  sender: string;
  module: string;
  creator: string;
  coll: string;
  nft: string;
  tokenId: string;
  to: string;
}): SimEvent[] {
  const events = [
    executeEvent(m.sender, '0x1', m.module, 'mint'),
    moveEvent('0x1::object::CreateEvent', `{"object":"${m.nft}","owner":"${m.creator}","version":"1"}`),
    moveEvent(
      '0x1::collection::MintEvent',
      `{"collection":"${m.coll}","token_id":"${m.tokenId}","nft":"${m.nft}"}`,
    ),
  ];
  if (m.to !== m.creator)
    events.push(
      moveEvent('0x1::object::TransferEvent', `{"object":"${m.nft}","from":"${m.creator}","to":"${m.to}"}`),
    );
  return events;
}

type OpOf<K extends NftOp['kind']> = Extract<NftOp, { kind: K }>;

/** One `MsgExecute` with its message event first. */
function singleMsgParts(
  signer: SimAccount,
  msg: EncodedMsg,
  events: SimEvent[],
  gasBase: number,
): NftTxParts {
  return { msg, events: [messageEvent(signer), ...events], response: MSG_EXECUTE + 'Response', gasBase };
}

function createCollectionParts(
  ctx: MoveNftContext,
  op: OpOf<'create-collection'>,
  signer: SimAccount,
): NftTxParts {
  const name = collectionName(op.collection);
  const coll = shortHex(moveCollectionAddress(ctx, op.collection));
  const msg = call(signer, 'simple_nft', 'create_collection', [
    bcs.string(`Simulated collection ${op.collection}`),
    concatBytes([Uint8Array.of(1), bcs.u64(1_000_000)]),
    bcs.string(name),
    bcs.string(`ipfs://bafysim${op.collection}`),
  ]);
  const events = collectionCreatedEvents(shortHex(signer.address), 'simple_nft', coll, name);
  return singleMsgParts(signer, msg, events, 220_000);
}

function mintParts(ctx: MoveNftContext, op: OpOf<'mint'>, signer: SimAccount): NftTxParts {
  const creator = shortHex(ctx.accounts[collectionCreator(ctx.plan, op.collection)]!.address);
  const coll = shortHex(moveCollectionAddress(ctx, op.collection));
  const nft = shortHex(moveNftAddress(ctx, op.collection, op.tokenId));
  const to = shortHex(moveHolderAddress(ctx, op.to));
  const msg = call(signer, 'simple_nft', 'mint', [
    pad32(moveCollectionAddress(ctx, op.collection)),
    bcs.string(''),
    bcs.string(op.tokenId),
    bcs.string(op.uri),
    concatBytes([Uint8Array.of(1), pad32(moveHolderAddress(ctx, op.to))]),
  ]);
  const events = mintedEvents({
    sender: shortHex(signer.address),
    module: 'simple_nft',
    creator,
    coll,
    nft,
    tokenId: op.tokenId,
    to,
  });
  return singleMsgParts(signer, msg, events, 260_000);
}

function transferParts(ctx: MoveNftContext, op: OpOf<'transfer'>, signer: SimAccount): NftTxParts {
  const nftBytes = moveNftAddress(ctx, op.collection, op.tokenId);
  const nft = shortHex(nftBytes);
  const msg = call(signer, 'object', 'transfer_call', [
    pad32(nftBytes),
    pad32(moveHolderAddress(ctx, op.to)),
  ]);
  const events = [executeEvent(shortHex(signer.address), '0x1', 'object', 'transfer_call')];
  if (op.from !== op.to) {
    events.push(
      moveEvent(
        '0x1::object::TransferEvent',
        `{"object":"${nft}","from":"${shortHex(ctx.accounts[op.from]!.address)}","to":"${shortHex(moveHolderAddress(ctx, op.to))}"}`,
      ),
    );
  }
  return singleMsgParts(signer, msg, events, 150_000);
}

function mutateUriParts(ctx: MoveNftContext, op: OpOf<'mutate-uri'>, signer: SimAccount): NftTxParts {
  const nftBytes = moveNftAddress(ctx, op.collection, op.tokenId);
  const msg = call(
    signer,
    'simple_nft',
    'set_uri',
    [pad32(nftBytes), bcs.string(op.newUri)],
    ['0x1::simple_nft::SimpleNft'],
  );
  const events = [
    executeEvent(shortHex(signer.address), '0x1', 'simple_nft', 'set_uri'),
    moveEvent(
      '0x1::nft::MutationEvent',
      JSON.stringify({
        nft: shortHex(nftBytes),
        mutated_field_name: 'uri',
        old_value: op.oldUri,
        new_value: op.newUri,
      }),
    ),
  ];
  return singleMsgParts(signer, msg, events, 160_000);
}

function burnParts(ctx: MoveNftContext, op: OpOf<'burn'>, signer: SimAccount): NftTxParts {
  const nftBytes = moveNftAddress(ctx, op.collection, op.tokenId);
  const coll = shortHex(moveCollectionAddress(ctx, op.collection));
  const msg = call(signer, 'simple_nft', 'burn', [pad32(nftBytes)], ['0x1::simple_nft::SimpleNft']);
  const events = [
    executeEvent(shortHex(signer.address), '0x1', 'simple_nft', 'burn'),
    moveEvent(
      '0x1::collection::BurnEvent',
      `{"collection":"${coll}","token_id":"${op.tokenId}","nft":"${shortHex(nftBytes)}"}`,
    ),
  ];
  return singleMsgParts(signer, msg, events, 170_000);
}

/** Move NFT operations: `0x1::simple_nft` calls and their `0x1::collection` / object events. */
export function moveNftParts(ctx: MoveNftContext, op: NftOp, signer: SimAccount, g: number): NftTxParts {
  switch (op.kind) {
    case 'create-collection':
      return createCollectionParts(ctx, op, signer);
    case 'mint':
      return mintParts(ctx, op, signer);
    case 'transfer':
      return transferParts(ctx, op, signer);
    case 'mutate-uri':
      return mutateUriParts(ctx, op, signer);
    case 'burn':
      return burnParts(ctx, op, signer);
    case 'ibc-receive':
      return moveIbcReceive(ctx, op, signer, g);
  }
}

/**
 * `marketplace::make_offer(nft, price)`: an offer on a live NFT by any account. The object is
 * named in the call's event and stays where it is: no NFT event, no coin movement (the offer is
 * settled later, outside the simulated workload).
 */
export function moveOfferParts(ctx: MoveNftContext, offer: NftOffer, signer: SimAccount): NftTxParts {
  const nftBytes = moveNftAddress(ctx, offer.collection, offer.tokenId);
  const market = shortHex(MOVE_MARKET);
  const user = shortHex(signer.address);
  const msg = msgExecute({
    sender: signer.bech32,
    moduleAddress: market,
    moduleName: 'marketplace',
    functionName: 'make_offer',
    typeArgs: [],
    args: [pad32(nftBytes), bcs.u64(BigInt(offer.price))],
  });
  const data = `{"nft":"${shortHex(nftBytes)}","offerer":"${user}","price":"${offer.price}"}`;
  return {
    msg,
    events: [
      messageEvent(signer),
      executeEvent(user, market, 'marketplace', 'make_offer'),
      moveEvent(`${market}::marketplace::OfferEvent`, data),
    ],
    response: MSG_EXECUTE + 'Response',
    gasBase: 140_000,
  };
}

function moveIbcReceive(
  ctx: MoveNftContext,
  op: Extract<NftOp, { kind: 'ibc-receive' }>,
  relayer: SimAccount,
  g: number,
): NftTxParts {
  const receiver = ctx.accounts[op.to]!;
  const className = moveIbcClassName();
  const coll = shortHex(moveIbcCollectionAddress());
  const nft = shortHex(moveIbcNftAddress(op.tokenId));
  const packet = nftReceivePacket(op, receiver.bech32, 'nft-transfer');
  const to = shortHex(receiver.address);
  const classEvents: SimEvent[] = [
    ...(op.first ? collectionCreatedEvents('0x1', 'initia_nft', coll, className) : []),
    ...mintedEvents({
      sender: '0x1',
      module: 'initia_nft',
      creator: '0x1',
      coll,
      nft,
      tokenId: op.tokenId,
      to,
    }),
  ];
  return recvPacketParts(packet, relayer.bech32, g, classEvents, className, 300_000);
}
