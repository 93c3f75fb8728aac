import { nftReceivePacket } from '../common/nft-receive-packet.js';
import { toBech32 } from '../../../shared/address.js';
import { bankKindOf, planBankSend, plainSendEvents } from '../common/bank.js';
import { event, type SimEvent } from '../../chain/events.js';
import { recvPacketParts } from '../common/ibc.js';
import { sha256, type SimAccount } from '../../chain/keys.js';
import { amountOf, gasOf, nftTx, recipientOf, signerOf, type ModelContext } from '../common/context.js';
import {
  collectionCreator,
  collectionName,
  ESCROW,
  IBC,
  nftOpAt,
  type Holder,
  type NftOp,
  type NftPlanContext,
} from '../../chain/nft-lifecycle.js';
import type { NftTxParts, VmModel } from '../../chain/plan.js';
import { pick, Stream } from '../../chain/prng.js';
import {
  msgExecuteContract,
  msgInstantiateContract,
  MSG_EXECUTE_CONTRACT,
  MSG_INSTANTIATE_CONTRACT,
} from './msgs.js';

/** Wasm contracts of the simulated chain (32-byte addresses, bech32 `init1…` of 58 characters). */
export interface WasmContracts {
  cw721(c: number): string;
  cw20: string;
  ics721: string;
  ibcCw721: string;
  escrow: string;
  ibcClassName: string;
  holder(h: Holder): string;
}

export function createWasmContracts(ctx: ModelContext): WasmContracts {
  const addr = (label: string): string =>
    toBech32(new Uint8Array(sha256(`rollup-sim/wasm/${ctx.seed}/${label}`)), ctx.prefix);
  const cw721 = [0, 1, 2].map((c) => addr(`cw721/${c}`));
  const ics721 = addr('ics721');
  const escrow = addr('market');
  return {
    cw721: (c) => cw721[c] ?? addr(`cw721/${c}`),
    cw20: addr('cw20'),
    ics721,
    ibcCw721: addr('ics721/class'),
    escrow,
    ibcClassName: `wasm.${ics721}/${IBC.dstChannel}/${IBC.classIdOnL1}`,
    holder: (h) => (h === ESCROW ? escrow : ctx.accounts[h]!.bech32),
  };
}

const wasmEvent = (contract: string, pairs: Array<[string, string]>): SimEvent =>
  event('wasm', [['_contract_address', contract], ...pairs]);
const executeOf = (contract: string): SimEvent => event('execute', [['_contract_address', contract]]);
const messageOf = (action: string, sender: string): SimEvent =>
  event('message', [
    ['action', action],
    ['sender', sender],
    ['module', 'wasm'],
  ]);

type OpOf<K extends NftOp['kind']> = Extract<NftOp, { kind: K }>;

/** One `MsgExecuteContract` with its message and execute events first. */
function executeParts(
  me: string,
  contract: string,
  msg: unknown,
  events: SimEvent[],
  gasBase: number,
): NftTxParts {
  return {
    msg: msgExecuteContract(me, contract, msg),
    events: [messageOf(MSG_EXECUTE_CONTRACT, me), executeOf(contract), ...events],
    response: MSG_EXECUTE_CONTRACT + 'Response',
    gasBase,
  };
}

function createCollectionParts(k: WasmContracts, op: OpOf<'create-collection'>, me: string): NftTxParts {
  const contract = k.cw721(op.collection);
  const init = { name: collectionName(op.collection), symbol: `SIM${op.collection}`, minter: me };
  return {
    msg: msgInstantiateContract(me, 1, `cw721-${op.collection}`, init),
    events: [
      messageOf(MSG_INSTANTIATE_CONTRACT, me),
      event('instantiate', [
        ['_contract_address', contract],
        ['code_id', '1'],
      ]),
    ],
    response: MSG_INSTANTIATE_CONTRACT + 'Response',
    gasBase: 250_000,
  };
}

function mintParts(k: WasmContracts, op: OpOf<'mint'>, me: string): NftTxParts {
  const c = k.cw721(op.collection);
  const owner = k.holder(op.to);
  const events = [
    wasmEvent(c, [
      ['action', 'mint'],
      ['minter', me],
      ['owner', owner],
      ['token_id', op.tokenId],
      ['token_uri', op.uri],
    ]),
  ];
  return executeParts(me, c, { mint: { token_id: op.tokenId, owner, token_uri: op.uri } }, events, 230_000);
}

/** `send_nft` to a marketplace contract (which lists it), or a plain `transfer_nft`. */
function transferParts(k: WasmContracts, op: OpOf<'transfer'>, me: string): NftTxParts {
  const c = k.cw721(op.collection);
  const recipient = k.holder(op.to);
  if (op.send) {
    const inner = Buffer.from(JSON.stringify({ list: { price: '1000' } })).toString('base64');
    const events = [
      wasmEvent(c, [
        ['action', 'send_nft'],
        ['sender', me],
        ['recipient', recipient],
        ['token_id', op.tokenId],
      ]),
      executeOf(recipient),
      wasmEvent(recipient, [
        ['action', 'receive_nft'],
        ['collection', c],
        ['token_id', op.tokenId],
        ['sender', me],
      ]),
    ];
    const msg = { send_nft: { contract: recipient, token_id: op.tokenId, msg: inner } };
    return executeParts(me, c, msg, events, 260_000);
  }
  const events = [
    wasmEvent(c, [
      ['action', 'transfer_nft'],
      ['sender', me],
      ['recipient', recipient],
      ['token_id', op.tokenId],
    ]),
  ];
  return executeParts(me, c, { transfer_nft: { recipient, token_id: op.tokenId } }, events, 200_000);
}

function burnParts(k: WasmContracts, op: OpOf<'burn'>, me: string): NftTxParts {
  const c = k.cw721(op.collection);
  const events = [
    wasmEvent(c, [
      ['action', 'burn'],
      ['sender', me],
      ['token_id', op.tokenId],
    ]),
  ];
  return executeParts(me, c, { burn: { token_id: op.tokenId } }, events, 180_000);
}

function nftParts(k: WasmContracts, op: NftOp, signer: SimAccount, g: number): NftTxParts {
  switch (op.kind) {
    case 'create-collection':
      return createCollectionParts(k, op, signer.bech32);
    case 'mint':
      return mintParts(k, op, signer.bech32);
    case 'transfer':
      return transferParts(k, op, signer.bech32);
    case 'mutate-uri':
      throw new Error('cw721 has no URI mutation; the Wasm plan disables it');
    case 'burn':
      return burnParts(k, op, signer.bech32);
    case 'ibc-receive':
      return ibcReceive(k, op, signer, g);
  }
}

function ibcReceive(
  k: WasmContracts,
  op: Extract<NftOp, { kind: 'ibc-receive' }>,
  relayer: SimAccount,
  g: number,
): NftTxParts {
  const receiver = k.holder(op.to);
  const packet = nftReceivePacket(op, receiver, `wasm.${k.ics721}`);
  const inner: SimEvent[] = [
    wasmEvent(k.ics721, [
      ['method', 'receive_ibc_packet'],
      ['class_id', `${IBC.dstChannel}/${IBC.classIdOnL1}`],
    ]),
    executeOf(k.ics721),
  ];
  if (op.first)
    inner.push(
      event('instantiate', [
        ['_contract_address', k.ibcCw721],
        ['code_id', '1'],
      ]),
    );
  inner.push(
    executeOf(k.ibcCw721),
    wasmEvent(k.ibcCw721, [
      ['action', 'mint'],
      ['minter', k.ics721],
      ['owner', receiver],
      ['token_id', op.tokenId],
      ['token_uri', op.uri],
    ]),
    event('ibc_packet_received', [
      ['module', 'wasm'],
      ['_contract_address', k.ics721],
      ['success', 'true'],
    ]),
  );
  return recvPacketParts(packet, relayer.bech32, g, inner, k.ibcClassName, 400_000);
}

export function createWasmModel(ctx: ModelContext, k: WasmContracts, plan: NftPlanContext): VmModel {
  return {
    plan(g) {
      const who = signerOf(ctx, g);
      const { signer, sequence, mode } = who;
      const op = nftOpAt(plan, g);
      if (op) return nftTx(ctx, g, who, nftParts(k, op, signer, g));
      const kind = bankKindOf(pick(ctx.seed, Stream.kind, g, 100));
      if (kind) return planBankSend(ctx, g, kind, { signer, sequence, signMode: mode }, plainSendEvents);
      const to = recipientOf(ctx, g, signer, 0);
      const amount = amountOf(ctx, g, 0);
      const msg = msgExecuteContract(signer.bech32, k.cw20, { transfer: { recipient: to.bech32, amount } });
      return {
        signer,
        sequence,
        signMode: mode,
        memo: '',
        ...gasOf(ctx, g, 160_000),
        msgs: [msg],
        msgEvents: [
          [
            messageOf(MSG_EXECUTE_CONTRACT, signer.bech32),
            executeOf(k.cw20),
            wasmEvent(k.cw20, [
              ['action', 'transfer'],
              ['from', signer.bech32],
              ['to', to.bech32],
              ['amount', amount],
            ]),
          ],
        ],
        msgResponseTypes: [MSG_EXECUTE_CONTRACT + 'Response'],
      };
    },
    feeEvents: () => [],
  };
}

export const wasmCollectionCreator = (ctx: ModelContext, plan: NftPlanContext, c: number): string =>
  ctx.accounts[collectionCreator(plan, c)]!.bech32;
