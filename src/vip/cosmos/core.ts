import type { Any } from '@initia/initia.proto/google/protobuf/any.js';
import { toBech32 } from '../../shared/address.js';
import { AppError, InputError } from '../../shared/errors.js';
import { ChainError, decodeCosmosReason } from '../chain-error.js';
import { addressOfPublicKey, type CosmosSigner } from '../signer.js';
import type { BroadcastAck, PlannedTx, SignedTx, TxResult } from '../types.js';
import type { CosmosRest } from './rest.js';
import { signCosmosTx, unsignedTxBytes, type Coin, type UnsignedCosmosTx } from './tx.js';

export interface CosmosCoreOptions {
  rest: CosmosRest;
  signer: CosmosSigner;
  chainId: string;
  /** e.g. "0.015umin" */
  gasPrice: string;
  gasAdjustment: number;
  /** Refuse txs whose adjusted gas exceeds this (the rollup's per-tx/block limit). */
  maxTxGas: bigint;
  prefix: string;
}

export interface CosmosCore {
  senderBech32(): Promise<string>;
  plan(messages: Any[], printable: unknown[], gasMultiplier?: number): Promise<PlannedTx>;
  sign(planned: PlannedTx): Promise<SignedTx>;
  broadcast(tx: SignedTx): Promise<BroadcastAck>;
  lookup(hash: string): Promise<TxResult | undefined>;
  /** Simulates messages from the sender; answers gas or throws ChainError. */
  simulate(messages: Any[]): Promise<bigint>;
}

export function parseGasPrice(text: string): { amount: number; denom: string } {
  const m = /^(\d+(?:\.\d+)?)([a-zA-Z][a-zA-Z0-9/:._-]*)$/.exec(text.trim());
  if (!m?.[1] || !m[2])
    throw new InputError('invalid_gas_price', `invalid gas price "${text}" (e.g. 0.015umin)`);
  return { amount: Number(m[1]), denom: m[2] };
}

export function createCosmosCore(options: CosmosCoreOptions): CosmosCore {
  // The signer's key never changes: derive its address once, not for every message, simulation
  // and signature of every batch.
  let senderText: string | undefined;
  const ctx: CoreContext = {
    options,
    price: parseGasPrice(options.gasPrice),
    sender: async () =>
      (senderText ??= toBech32(
        addressOfPublicKey(await options.signer.publicKey(), options.signer.algo),
        options.prefix,
      )),
  };
  return {
    senderBech32: ctx.sender,
    simulate: (messages) => simulateMessages(ctx, messages),
    plan: (messages, printable, gasMultiplier = 1) => planTx(ctx, messages, printable, gasMultiplier),
    async sign(planned) {
      const req = planned.request as { messages: Any[]; fee: Coin[] };
      const tx = await draftTx(ctx, req.messages, planned.gasLimit, req.fee);
      const { raw, hash } = await signCosmosTx(tx, options.signer);
      return { hash, raw, planned };
    },
    async broadcast(tx) {
      const r = await options.rest.broadcastSync(tx.raw);
      // 19 = tx already in mempool/cache: the same bytes were accepted before.
      if (r.code === 19) return { accepted: true, code: 0, log: r.log };
      return { accepted: r.code === 0, code: r.code, log: r.log };
    },
    lookup: (hash) => options.rest.tx(hash),
  };
}

/** What every step of the core uses: its options, the parsed gas price, the sender's address. */
interface CoreContext {
  options: CosmosCoreOptions;
  price: { amount: number; denom: string };
  sender: () => Promise<string>;
}

async function draftTx(
  ctx: CoreContext,
  messages: Any[],
  gasLimit: bigint,
  fee: Coin[],
): Promise<UnsignedCosmosTx> {
  const { options } = ctx;
  const address = await ctx.sender();
  // Re-read number and sequence for every tx: a failed tx may still have consumed a sequence.
  const acc = await options.rest.account(address);
  if (!acc)
    throw new AppError('account_not_found', `account ${address} does not exist on chain (fund it first)`);
  return {
    messages,
    memo: '',
    gasLimit,
    fee,
    chainId: options.chainId,
    accountNumber: acc.accountNumber,
    sequence: acc.sequence,
    publicKey: await options.signer.publicKey(),
    algo: options.signer.algo,
    // Simulate with the same mode_info as the signed tx, so the gas estimate covers it.
    signMode: options.signer.signMode,
  };
}

async function simulateMessages(ctx: CoreContext, messages: Any[]): Promise<bigint> {
  const tx = await draftTx(ctx, messages, 0n, []);
  try {
    return (await ctx.options.rest.simulate(unsignedTxBytes(tx))).gasUsed;
  } catch (err) {
    if (err instanceof AppError && err.code === 'simulate_failed') {
      const log = err.message;
      const reason = decodeCosmosReason(log);
      throw new ChainError(`simulation failed: ${log}`, {
        ...(typeof err.details.chainCode === 'number' ? { chainCode: err.details.chainCode } : {}),
        ...(reason === undefined ? {} : { reason }),
        cause: err,
      });
    }
    throw err;
  }
}

/** Simulated gas × the adjustment, refused above the rollup's limit, and the fee at the gas price. */
async function planTx(
  ctx: CoreContext,
  messages: Any[],
  printable: unknown[],
  gasMultiplier: number,
): Promise<PlannedTx> {
  const { options, price } = ctx;
  const gasUsed = await simulateMessages(ctx, messages);
  const gasLimit = BigInt(Math.ceil(Number(gasUsed) * options.gasAdjustment * gasMultiplier));
  if (gasLimit > options.maxTxGas) {
    throw new ChainError(`tx needs ${gasLimit} gas, above the limit ${options.maxTxGas}`, {
      reason: 'gas_limit',
    });
  }
  const fee: Coin[] = [{ denom: price.denom, amount: String(Math.ceil(Number(gasLimit) * price.amount)) }];
  return {
    messages: printable,
    gasLimit,
    gasEstimate: gasUsed,
    fee: `${fee[0]?.amount}${price.denom}`,
    request: { messages, fee },
  };
}
