import { event, type SimEvent } from '../../chain/events.js';
import {
  abiString,
  addressWord,
  checksum,
  hexQuantity,
  NONEXISTENT_TOKEN,
  OWNERSHIP_TOPIC,
  SELECTOR,
  addressTopic,
  transferLog,
  word,
  ZERO_ADDRESS,
  type EvmLog,
} from './abi.js';
import type { EvmContracts } from './contracts.js';
import type { SimAccount } from '../../chain/keys.js';
import { amountOf, recipientOf } from '../common/context.js';
import { ESCROW, collectionName, type Holder, type NftOp } from '../../chain/nft-lifecycle.js';

import type { EvmFrame, EvmModelContext, TokenDelta } from './types.js';

export const GAS_FEE_CAP = 1000n;
export const GAS_TIP_CAP = 1n;

export interface CallSpec {
  to: string;
  input: string;
  output: string;
  logs: EvmLog[];
  children: EvmFrame[];
  transfers: TokenDelta[];
  extraEvents?: SimEvent[];
  revert?: string;
  gasBase: number;
}

export function evmHolder(k: EvmContracts, accounts: SimAccount[], h: Holder): string {
  return h === ESCROW ? k.escrow : accounts[h]!.hex;
}

export const frame = (
  type: EvmFrame['type'],
  from: string,
  to: string,
  input: string,
  output: string,
  gas: number,
  used: number,
): EvmFrame => ({
  type,
  from,
  to,
  value: '0x0',
  gas: hexQuantity(gas),
  gasUsed: hexQuantity(used),
  input,
  output,
});

export function nftCall(
  ctx: EvmModelContext,
  op: Exclude<NftOp, { kind: 'ibc-receive' | 'mutate-uri' }>,
  signer: SimAccount,
): CallSpec {
  const k = ctx.contracts;
  const holder = (h: Holder): string => evmHolder(k, ctx.model.accounts, h);
  if (op.kind === 'create-collection') {
    const coll = k.collection(op.collection);
    const name = abiString(collectionName(op.collection)).slice(2);
    return {
      to: k.factory,
      input: SELECTOR.createCollection + word(32) + name.slice(64),
      output: '0x' + addressWord(coll),
      logs: [
        {
          address: checksum(coll),
          topics: [OWNERSHIP_TOPIC, addressTopic(ZERO_ADDRESS), addressTopic(signer.hex)],
          data: '0x',
        },
      ],
      children: [
        frame('CREATE', k.factory, coll, '0x6080604052348015600e575f5ffd5b50', '0x', 900_000, 600_000),
      ],
      transfers: [],
      extraEvents: [event('contract_created', [['contract', checksum(coll)]])],
      gasBase: 900_000,
    };
  }
  const coll = k.collection(op.collection);
  const id = BigInt(op.tokenId);
  if (op.kind === 'mint') {
    return {
      to: coll,
      input: SELECTOR.mint + addressWord(holder(op.to)) + word(id),
      output: '0x',
      logs: [transferLog(coll, ZERO_ADDRESS, holder(op.to), id, true)],
      children: [],
      transfers: [],
      gasBase: 160_000,
    };
  }
  if (op.kind === 'burn') {
    return {
      to: coll,
      input: SELECTOR.burn + word(id),
      output: '0x',
      logs: [transferLog(coll, holder(op.from), ZERO_ADDRESS, id, true)],
      children: [],
      transfers: [],
      gasBase: 90_000,
    };
  }
  const from = holder(op.from);
  const to = holder(op.to);
  const args = addressWord(from) + addressWord(to) + word(id);
  if (op.send) {
    const received =
      SELECTOR.onERC721Received +
      addressWord(signer.hex) +
      addressWord(from) +
      word(id) +
      word(128) +
      word(0);
    return {
      to: coll,
      input: SELECTOR.safeTransferFrom + args,
      output: '0x',
      logs: [transferLog(coll, from, to, id, true)],
      children: [
        frame('CALL', coll, to, received, SELECTOR.onERC721Received + '0'.repeat(56), 60_000, 4_000),
      ],
      transfers: [],
      gasBase: 120_000,
    };
  }
  return {
    to: coll,
    input: SELECTOR.transferFrom + args,
    output: '0x',
    logs: [transferLog(coll, from, to, id, true)],
    children: [],
    transfers: [],
    gasBase: 100_000,
  };
}

export function fungibleCall(ctx: EvmModelContext, g: number, signer: SimAccount, r: number): CallSpec {
  const k = ctx.contracts;
  const token = k.tokenOf('uusdc')!;
  const to = recipientOf(ctx.model, g, signer, 0);
  const toHex = '0x' + Buffer.from(to.address).toString('hex');
  const amount = BigInt(amountOf(ctx.model, g, 0));
  if (r < 80) {
    return {
      to: token,
      input: SELECTOR.transfer + addressWord(toHex) + word(amount),
      output: '0x' + word(1),
      logs: [transferLog(token, signer.hex, toHex, amount, false)],
      children: [],
      transfers: [{ token, from: signer.hex, to: toHex, amount }],
      gasBase: 60_000,
    };
  }
  if (r < 90) {
    const router = k.router;
    return {
      to: router,
      input: SELECTOR.forward + addressWord(token) + addressWord(toHex) + word(amount),
      output: '0x',
      logs: [
        transferLog(token, signer.hex, router, amount, false),
        transferLog(token, router, toHex, amount, false),
      ],
      children: [
        frame(
          'CALL',
          router,
          token,
          SELECTOR.transferFrom + addressWord(signer.hex) + addressWord(router) + word(amount),
          '0x' + word(1),
          80_000,
          30_000,
        ),
        frame(
          'CALL',
          router,
          token,
          SELECTOR.transfer + addressWord(toHex) + word(amount),
          '0x' + word(1),
          50_000,
          25_000,
        ),
      ],
      transfers: [
        { token, from: signer.hex, to: router, amount },
        { token, from: router, to: toHex, amount },
      ],
      gasBase: 140_000,
    };
  }
  const missing = 1_000_000_000n + BigInt(g);
  const coll = k.collection(g % 3);
  return {
    to: coll,
    input: SELECTOR.transferFrom + addressWord(signer.hex) + addressWord(toHex) + word(missing),
    output: '0x',
    logs: [],
    children: [],
    transfers: [],
    revert: NONEXISTENT_TOKEN + word(missing),
    gasBase: 50_000,
  };
}
