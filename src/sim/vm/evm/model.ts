import { nftReceivePacket } from '../common/nft-receive-packet.js';
import { bankSendMessageEvent, coinTransferEvents } from '../common/bank-events.js';
import { bankKindOf, planBankSend } from '../common/bank.js';
import { event, type SimEvent } from '../../chain/events.js';
import { checksum, logJson, transferLog, ZERO_ADDRESS } from './abi.js';
import { msgCall, MSG_CALL, signEthTx, type EthTx } from './ethtx.js';
import { recvPacketParts } from '../common/ibc.js';
import type { SimAccount } from '../../chain/keys.js';
import { coinsOf, gasOf, nftTx, recipientOf, signerOf, type Party } from '../common/context.js';
import { coinsText } from '../../chain/tx-build.js';
import { nftOpAt, type NftOp } from '../../chain/nft-lifecycle.js';
import type { PlannedTx, VmModel } from '../../chain/plan.js';
import { pick, Stream } from '../../chain/prng.js';
import type { Coin } from '../../types.js';
import type { EvmFrame, EvmModelContext, EvmTxData, TokenDelta } from './types.js';
import { frame, fungibleCall, GAS_FEE_CAP, GAS_TIP_CAP, nftCall, type CallSpec } from './calls.js';

type EvmDataMap = WeakMap<PlannedTx, EvmTxData>;

function feeLogEvents(ctx: EvmModelContext, from: string, amount: string): SimEvent[] {
  const k = ctx.contracts;
  return [
    event('call', [
      ['contract', checksum(k.feeToken)],
      ['ret', '0x'],
    ]),
    event('evm', [
      ['log', logJson(transferLog(k.feeToken, from, ctx.feeCollectorHex, BigInt(amount), false))],
    ]),
  ];
}

/** A bank send's events on minievm: each coin is an ERC20 transfer of its backing contract. */
function coinEvents(ctx: EvmModelContext, from: SimAccount, to: Party, coins: Coin[]): SimEvent[] {
  const k = ctx.contracts;
  const amount = coinsText(coins);
  const toHex = '0x' + Buffer.from(to.address).toString('hex');
  const out: SimEvent[] = [bankSendMessageEvent(from.bech32)];
  for (const c of coins) {
    const token = k.tokenOf(c.denom)!;
    out.push(
      event('call', [
        ['contract', checksum(token)],
        ['ret', '0x'],
      ]),
      event('evm', [['log', logJson(transferLog(token, from.hex, toHex, BigInt(c.amount), false))]]),
    );
  }
  out.push(...coinTransferEvents(from.bech32, to.bech32, amount));
  return out;
}

function callMsgEvents(spec: CallSpec, signer: SimAccount, contract: string): SimEvent[] {
  return [
    event('message', [
      ['action', MSG_CALL],
      ['sender', signer.bech32],
      ['module', 'evm'],
    ]),
    ...(spec.extraEvents ?? []),
    event('call', [
      ['contract', contract],
      ['ret', spec.output],
    ]),
    event(
      'evm',
      spec.logs.map((l) => ['log', logJson(l)] as [string, string]),
    ),
  ];
}

function callTrace(spec: CallSpec, signer: SimAccount, gas: { gasLimit: number; gasUsed: number }): EvmFrame {
  const reverted = spec.revert !== undefined;
  return {
    ...frame(
      'CALL',
      signer.hex,
      spec.to,
      spec.input,
      reverted ? spec.revert! : spec.output,
      gas.gasLimit,
      gas.gasUsed,
    ),
    ...(reverted ? { error: 'execution reverted' } : {}),
    ...(spec.children.length > 0 ? { calls: spec.children } : {}),
  };
}

/** The gas refund a successful Ethereum tx gets back: the refund event and its fee-token transfer. */
function refundEvents(
  ctx: EvmModelContext,
  signer: SimAccount,
  unusedGas: number,
  refund: string,
): SimEvent[] {
  const k = ctx.contracts;
  return [
    event('gas_refund', [
      ['gas', String(unusedGas)],
      ['coins', `${refund}${k.feeDenom}`],
    ]),
    event('call', [
      ['contract', checksum(k.feeToken)],
      ['ret', '0x'],
    ]),
    event('evm', [
      ['log', logJson(transferLog(k.feeToken, ctx.feeCollectorHex, signer.hex, BigInt(refund), false))],
    ]),
  ];
}

interface CallParts {
  signer: SimAccount;
  sequence: number;
  gas: { gasLimit: number; gasUsed: number };
  msg: PlannedTx['msgs'][number];
  msgEvents: SimEvent[];
}

/** The call wrapped in a signed Ethereum tx (MsgCall with the EIP-1559 signature preset). */
function ethereumCallTx(
  ctx: EvmModelContext,
  spec: CallSpec,
  parts: CallParts,
): { planned: PlannedTx; eth: EthTx } {
  const { signer, sequence, gas, msg, msgEvents } = parts;
  const k = ctx.contracts;
  const eth = signEthTx({
    chainId: ctx.chainId,
    signer,
    to: spec.to,
    nonce: sequence,
    gas: gas.gasLimit,
    maxFeePerGas: GAS_FEE_CAP,
    maxPriorityFeePerGas: GAS_TIP_CAP,
    input: spec.input,
    fastSignature: ctx.fastSignatures,
  });
  const fee = [{ denom: k.feeDenom, amount: String(GAS_FEE_CAP * BigInt(gas.gasLimit)) }];
  const refund = (GAS_FEE_CAP * BigInt(gas.gasLimit - gas.gasUsed)).toString();
  const planned: PlannedTx = {
    signer,
    sequence,
    signMode: 'ETHEREUM',
    memo: `{"type":2,"gas_fee_cap":"${GAS_FEE_CAP}","gas_tip_cap":"${GAS_TIP_CAP}"}`,
    fee,
    gasLimit: gas.gasLimit,
    gasUsed: gas.gasUsed,
    msgs: [msg],
    msgEvents: [msgEvents],
    msgResponseTypes: [MSG_CALL + 'Response'],
    presetSignature: eth.signature65,
    evmHash: eth.hash,
    ...(spec.revert !== undefined
      ? {}
      : { postEvents: refundEvents(ctx, signer, gas.gasLimit - gas.gasUsed, refund) }),
  };
  return { planned, eth };
}

function callTx(ctx: EvmModelContext, data: EvmDataMap, g: number, spec: CallSpec): PlannedTx {
  const { signer, sequence, mode } = signerOf(ctx.model, g);
  const gas = gasOf(ctx.model, g, spec.gasBase);
  const wrapped = signer.keyType === 'ethsecp256k1' && pick(ctx.model.seed, Stream.signMode + 7, g, 4) !== 0;
  const contract = checksum(spec.to);
  const msg = msgCall(signer.bech32, contract, spec.input);
  const reverted = spec.revert !== undefined;
  const msgEvents = callMsgEvents(spec, signer, contract);
  const trace = callTrace(spec, signer, gas);
  let planned: PlannedTx;
  let eth: EthTx | undefined;
  if (wrapped) {
    ({ planned, eth } = ethereumCallTx(ctx, spec, { signer, sequence, gas, msg, msgEvents }));
  } else {
    planned = {
      signer,
      sequence,
      signMode: mode,
      memo: '',
      ...gas,
      msgs: [msg],
      msgEvents: [msgEvents],
      msgResponseTypes: [MSG_CALL + 'Response'],
    };
  }
  if (reverted) {
    planned.failure = {
      code: 4,
      codespace: 'evm',
      log: `failed to execute message; message index: 0: execution reverted: ret: ${spec.revert}: evm call failed`,
    };
  }
  data.set(planned, {
    ...(eth ? { eth } : {}),
    gasPrice: eth ? GAS_FEE_CAP : 0n,
    status: reverted ? 0 : 1,
    msgLogs: reverted ? [] : spec.logs,
    ...(eth ? { trace } : {}),
    transfers: reverted ? [] : spec.transfers,
    refund: eth && !reverted ? GAS_FEE_CAP * BigInt(gas.gasLimit - gas.gasUsed) : 0n,
  });
  return planned;
}

function ibcTx(
  ctx: EvmModelContext,
  data: EvmDataMap,
  g: number,
  op: Extract<NftOp, { kind: 'ibc-receive' }>,
): PlannedTx {
  const k = ctx.contracts;
  const who = signerOf(ctx.model, g);
  const receiver = ctx.model.accounts[op.to]!;
  const coll = k.ibcCollection;
  const packet = nftReceivePacket(op, receiver.bech32, 'nft-transfer');
  const mintLog = transferLog(coll, ZERO_ADDRESS, receiver.hex, BigInt(op.tokenId), true);
  const inner: SimEvent[] = [
    ...(op.first
      ? [
          event('contract_created', [['contract', checksum(coll)]]),
          event('erc721_created', [
            ['class_id', k.ibcName],
            ['contract', checksum(coll)],
          ]),
        ]
      : []),
    event('call', [
      ['contract', checksum(coll)],
      ['ret', '0x'],
    ]),
    event('evm', [['log', logJson(mintLog)]]),
    event('erc721_minted', [
      ['contract', checksum(coll)],
      ['token_id', op.tokenId],
      ['token_origin_id', op.tokenId],
    ]),
  ];
  const planned = nftTx(
    ctx.model,
    g,
    who,
    recvPacketParts(packet, who.signer.bech32, g, inner, k.ibcName, 400_000),
  );
  data.set(planned, { gasPrice: 0n, status: 1, msgLogs: [mintLog], transfers: [], refund: 0n });
  return planned;
}

/** A bank send (one or many coins), with the ERC20 transfers of the coins' backing contracts. */
function bankTx(
  ctx: EvmModelContext,
  data: EvmDataMap,
  g: number,
  kind: NonNullable<ReturnType<typeof bankKindOf>>,
): PlannedTx {
  const k = ctx.contracts;
  const { signer, sequence, mode } = signerOf(ctx.model, g);
  const planned = planBankSend(ctx.model, g, kind, { signer, sequence, signMode: mode }, (from, to, coins) =>
    coinEvents(ctx, from, to, coins),
  );
  const transfers: TokenDelta[] = [];
  if (!planned.failure) {
    const to = recipientOf(ctx.model, g, signer, 0);
    const toHex = '0x' + Buffer.from(to.address).toString('hex');
    planned.msgEvents.forEach((_, i) => {
      for (const c of bankCoins(ctx, g, i, kind))
        transfers.push({
          token: k.tokenOf(c.denom)!,
          from: signer.hex,
          to: toHex,
          amount: BigInt(c.amount),
        });
    });
  }
  data.set(planned, {
    gasPrice: 0n,
    status: planned.failure ? 0 : 1,
    msgLogs: [],
    transfers,
    refund: 0n,
  });
  return planned;
}

export function createEvmModel(
  ctx: EvmModelContext,
): VmModel & { evmData(tx: PlannedTx): EvmTxData | undefined } {
  const data: EvmDataMap = new WeakMap();
  return {
    evmData: (tx) => data.get(tx),
    plan(g) {
      const op = nftOpAt(ctx.plan, g);
      if (op?.kind === 'ibc-receive') return ibcTx(ctx, data, g, op);
      if (op && op.kind !== 'mutate-uri')
        return callTx(ctx, data, g, nftCall(ctx, op, signerOf(ctx.model, g).signer));
      const r = pick(ctx.model.seed, Stream.kind, g, 100);
      const kind = bankKindOf(r);
      if (kind) return bankTx(ctx, data, g, kind);
      return callTx(ctx, data, g, fungibleCall(ctx, g, signerOf(ctx.model, g).signer, r));
    },
    feeEvents: (tx) => feeLogEvents(ctx, tx.signer.hex, tx.fee[0]!.amount),
  };
}

function bankCoins(ctx: EvmModelContext, g: number, i: number, kind: string): Coin[] {
  return coinsOf(ctx.model, g, i, kind === 'send-multi-coin');
}
