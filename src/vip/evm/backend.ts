import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  http,
  isAddress,
  keccak256,
  type Account,
  type Hex,
  type PublicClient,
  type TransactionSerializable,
} from 'viem';
import { InputError } from '../../shared/errors.js';
import { ChainError } from '../chain-error.js';
import {
  OUT_OF_GAS_CODE,
  type BroadcastAck,
  type PlannedTx,
  type PlanTuning,
  type SignedTx,
  type StageInfo,
  type TxResult,
  type VipBackend,
  type VipOp,
} from '../types.js';
import { VIP_SCORE_ABI } from './abi.js';

export interface EvmBackendOptions {
  rpcUrl: string;
  account: Account & { signTransaction: NonNullable<Account['signTransaction']> };
  /** Unset before deploy. */
  contract?: Hex;
  /** Contract bytecode, needed for deployEvm. */
  bytecode?: Hex;
  /** Multiplier on eth_estimateGas, e.g. 1.2. */
  gasAdjustment: number;
}

interface EvmRequest {
  to?: Hex;
  data: Hex;
  gas: bigint;
}

export function createEvmBackend(options: EvmBackendOptions): VipBackend & { client: PublicClient } {
  const client = createPublicClient({ transport: http(options.rpcUrl, { retryCount: 0 }) });
  const ctx: EvmContext = {
    client,
    account: options.account,
    options,
    contract: () => {
      if (!options.contract)
        throw new InputError('missing_contract', 'the contract address is required (--contract)');
      return options.contract;
    },
  };
  return {
    vm: 'evm',
    client,
    senderAddress: async () => getAddress(ctx.account.address).toLowerCase(),
    normaliseAddress: normaliseEvmAddress,
    initStage: async () => {
      const s = await read<bigint>(ctx, 'initStage', []);
      return s === 0n ? undefined : s;
    },
    stageInfo: async (stage: bigint): Promise<StageInfo | undefined> => {
      const [s, totalScore, isFinalized] = await read<[bigint, bigint, boolean]>(ctx, 'stages', [stage]);
      return s === 0n ? undefined : { stage: s, totalScore, isFinalized };
    },
    score: async (stage, addr) => (await read<[boolean, bigint]>(ctx, 'scores', [stage, addr]))[1],
    writers: async () => undefined,
    isWriter: async (addr) => read<boolean>(ctx, 'allowList', [addr]),
    plan: (op, tuning) => plan(ctx, op, tuning),
    sign: (planned) => sign(ctx, planned),
    broadcast: (tx) => broadcast(ctx, tx),
    lookup: (hash) => lookup(ctx, hash),
  };
}

/** What every step of the EVM backend uses: the node client, the signing account, the contract. */
interface EvmContext {
  client: PublicClient;
  account: EvmBackendOptions['account'];
  options: EvmBackendOptions;
  /** The contract address; an error naming --contract when it is not set. */
  contract: () => Hex;
}

async function callData(ctx: EvmContext, op: VipOp): Promise<{ to?: Hex; data: Hex; printable: unknown }> {
  switch (op.kind) {
    case 'deployEvm': {
      if (!ctx.options.bytecode) throw new InputError('missing_bytecode', 'contract bytecode not loaded');
      const data = encodeDeployData({
        abi: VIP_SCORE_ABI,
        bytecode: ctx.options.bytecode,
        args: [op.initStage],
      });
      return {
        data,
        printable: { deploy: 'VipScore', constructor: { initStage_: op.initStage.toString() } },
      };
    }
    case 'updateScores': {
      const args = [op.stage, op.entries.map((e) => e.addr as Hex), op.entries.map((e) => e.amount)] as const;
      return fn(ctx, 'updateScores', args, { stage: op.stage.toString(), count: op.entries.length });
    }
    case 'finalize':
      return fn(ctx, 'finalizeStage', [op.stage] as const, { stage: op.stage.toString() });
    case 'allow':
      return fn(ctx, 'addAllowList', [op.addr as Hex] as const, { addr: op.addr });
    case 'disallow':
      return fn(ctx, 'removeAllowList', [op.addr as Hex] as const, { addr: op.addr });
    default:
      throw new InputError('unsupported_op', `${op.kind} is not an EVM operation`);
  }
}

function fn(
  ctx: EvmContext,
  functionName: 'updateScores' | 'finalizeStage' | 'addAllowList' | 'removeAllowList',
  args: readonly unknown[],
  shown: Record<string, unknown>,
): { to: Hex; data: Hex; printable: unknown } {
  const data = encodeFunctionData({ abi: VIP_SCORE_ABI, functionName, args } as never);
  return {
    to: ctx.contract(),
    data,
    printable: { to: ctx.contract(), function: functionName, args: shown, data },
  };
}

async function plan(ctx: EvmContext, op: VipOp, tuning: PlanTuning = {}): Promise<PlannedTx> {
  const { to, data, printable } = await callData(ctx, op);
  let estimate: bigint;
  try {
    estimate = await ctx.client.estimateGas({ account: ctx.account.address, ...(to ? { to } : {}), data });
  } catch (err) {
    throw decodeRevert(err);
  }
  const factor = ctx.options.gasAdjustment * (tuning.gasMultiplier ?? 1);
  const gas = (estimate * BigInt(Math.round(factor * 1000))) / 1000n;
  const fees = await ctx.client.estimateFeesPerGas();
  const request: EvmRequest = { ...(to ? { to } : {}), data, gas };
  return {
    messages: [printable],
    gasLimit: gas,
    gasEstimate: estimate,
    fee: `${gas} gas × ≤${fees.maxFeePerGas} wei`,
    request,
  };
}

async function sign(ctx: EvmContext, planned: PlannedTx): Promise<SignedTx> {
  const req = planned.request as EvmRequest;
  const [chainId, nonce, fees] = await Promise.all([
    ctx.client.getChainId(),
    ctx.client.getTransactionCount({ address: ctx.account.address, blockTag: 'pending' }),
    ctx.client.estimateFeesPerGas(),
  ]);
  // EIP-155 protected type-2 tx: MiniEVM accepts only replay-protected raw transactions.
  const tx: TransactionSerializable = {
    type: 'eip1559',
    chainId,
    nonce,
    gas: req.gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    data: req.data,
    ...(req.to ? { to: req.to } : {}),
  };
  const serialized = await ctx.account.signTransaction(tx);
  return { hash: keccak256(serialized), raw: Buffer.from(serialized.slice(2), 'hex'), planned };
}

async function broadcast(ctx: EvmContext, tx: SignedTx): Promise<BroadcastAck> {
  try {
    await ctx.client.sendRawTransaction({
      serializedTransaction: `0x${Buffer.from(tx.raw).toString('hex')}`,
    });
    return { accepted: true, code: 0, log: '' };
  } catch (err) {
    const msg = err instanceof BaseError ? err.details || err.shortMessage : String(err);
    // The same bytes are already pending or mined: not a failure, confirm by hash.
    if (/already known|nonce too low|already imported/i.test(msg))
      return { accepted: true, code: 0, log: msg };
    return { accepted: false, code: 1, log: msg };
  }
}

async function lookup(ctx: EvmContext, hash: string): Promise<TxResult | undefined> {
  const receipt = await ctx.client.getTransactionReceipt({ hash: hash as Hex }).catch(() => undefined);
  if (!receipt) return undefined;
  let log = '';
  let code = receipt.status === 'success' ? 0 : 1;
  if (receipt.status !== 'success') {
    const tx = await ctx.client.getTransaction({ hash: hash as Hex });
    // A revert that used every unit of gas ran out of gas; the call itself would succeed.
    if (receipt.gasUsed >= tx.gas) {
      code = OUT_OF_GAS_CODE;
      log = `out of gas: gasUsed ${receipt.gasUsed} of ${tx.gas}`;
    } else log = await revertReason(ctx, hash as Hex, receipt.blockNumber);
  }
  return {
    hash,
    height: Number(receipt.blockNumber),
    success: receipt.status === 'success',
    code,
    log,
    gasUsed: receipt.gasUsed,
    ...(receipt.contractAddress ? { contractAddress: getAddress(receipt.contractAddress) } : {}),
  };
}

/** Re-runs a reverted tx as eth_call at its block to recover the custom error. */
async function revertReason(ctx: EvmContext, hash: Hex, blockNumber: bigint): Promise<string> {
  const tx = await ctx.client.getTransaction({ hash });
  try {
    await ctx.client.call({
      account: tx.from,
      ...(tx.to ? { to: tx.to } : {}),
      data: tx.input,
      blockNumber: blockNumber - 1n,
    });
    return 'reverted';
  } catch (err) {
    const decoded = decodeRevert(err);
    return decoded.reason ?? decoded.message;
  }
}

async function read<T>(ctx: EvmContext, functionName: string, args: readonly unknown[]): Promise<T> {
  return (await ctx.client.readContract({
    address: ctx.contract(),
    abi: VIP_SCORE_ABI,
    functionName,
    args,
  } as never)) as T;
}

export function normaliseEvmAddress(text: string): string {
  const t = text.trim();
  if (!isAddress(t, { strict: false }))
    throw new InputError('invalid_address', `invalid EVM address: ${text}`);
  const lower = t.toLowerCase();
  // A zero address is silently skipped by the contract: refuse it instead of losing a row.
  if (/^0x0{40}$/.test(lower))
    throw new InputError('invalid_address', `zero address is skipped by the contract`);
  return lower;
}

export function decodeRevert(err: unknown): ChainError {
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError && revert.data?.errorName) {
      const args = (revert.data.args ?? []).map(String).join(', ');
      return new ChainError(`contract reverted: ${revert.data.errorName}(${args})`, {
        reason: revert.data.errorName,
        cause: err,
      });
    }
    const data = findRevertData(err);
    if (data) return decodeRawRevert(data, err);
    return new ChainError(err.shortMessage, { cause: err });
  }
  return new ChainError(String(err), { cause: err });
}

function findRevertData(err: BaseError): Hex | undefined {
  let found: Hex | undefined;
  err.walk((e) => {
    const d = (e as { data?: unknown }).data;
    if (typeof d === 'string' && d.startsWith('0x') && d.length >= 10) found = d as Hex;
    return false;
  });
  return found;
}

function decodeRawRevert(data: Hex, cause: unknown): ChainError {
  try {
    const decoded = new ContractFunctionRevertedError({
      abi: VIP_SCORE_ABI,
      data,
      functionName: 'updateScores',
    });
    const name = decoded.data?.errorName ?? 'revert';
    const args = (decoded.data?.args ?? []).map(String).join(', ');
    return new ChainError(`contract reverted: ${name}(${args})`, { reason: name, cause });
  } catch {
    return new ChainError(`contract reverted: ${data}`, { cause });
  }
}
