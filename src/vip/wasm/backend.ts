import {
  MsgExecuteContract,
  MsgInstantiateContract,
  MsgStoreCode,
} from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import type { Any } from '@initia/initia.proto/google/protobuf/any.js';
import { accountBytesFromString, toBech32 } from '../../shared/address.js';
import { AppError, InputError } from '../../shared/errors.js';
import type { CosmosCore } from '../cosmos/core.js';
import type { CosmosRest } from '../cosmos/rest.js';
import type { StageInfo, VipBackend, VipOp } from '../types.js';

export interface WasmBackendOptions {
  core: CosmosCore;
  rest: CosmosRest;
  prefix: string;
  contract?: string;
}

/** The contract compares raw strings, so only lowercase bech32 with the chain prefix is safe. */
export function normaliseWasmAddress(text: string, prefix: string): string {
  const bytes = accountBytesFromString(text.trim(), prefix);
  if (bytes.every((b) => b === 0))
    throw new InputError('invalid_address', 'zero address cannot claim a score');
  return toBech32(bytes, prefix);
}

/**
 * JSON with u64 values as bare digits: serde rejects quoted numbers, and JSON.stringify cannot
 * print bigint. Values are tagged while stringifying and unquoted afterwards.
 */
export function wasmJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `__u64:${v}` : v)).replace(
    /"__u64:(\d+)"/g,
    '$1',
  );
}

const utf8 = (s: string) => new TextEncoder().encode(s);

export function createWasmBackend(options: WasmBackendOptions): VipBackend {
  const { core, prefix } = options;
  const ctx: WasmContext = {
    core,
    rest: options.rest,
    contract: () => {
      if (!options.contract)
        throw new InputError('missing_contract', 'the contract address is required (--contract)');
      return options.contract;
    },
  };
  return {
    vm: 'wasm',
    senderAddress: () => core.senderBech32(),
    normaliseAddress: (text) => normaliseWasmAddress(text, prefix),
    initStage: () => readInitStage(ctx),
    stageInfo: (stage) => readStageInfo(ctx, stage),
    score: (stage, addr) => readScore(ctx, stage, addr),
    writers: async () => undefined,
    isWriter: (addr) => isAllowedWriter(ctx, addr),
    plan: async (op, tuning) => {
      const { any, printable } = await wasmMessage(ctx, op);
      return core.plan([any], [printable], tuning?.gasMultiplier);
    },
    sign: (planned) => core.sign(planned),
    broadcast: (tx) => core.broadcast(tx),
    lookup: (hash) => core.lookup(hash),
  };
}

/** What every step of the Wasm backend uses: the Cosmos tx core, REST, the contract. */
interface WasmContext {
  core: WasmBackendOptions['core'];
  rest: WasmBackendOptions['rest'];
  /** The contract address; an error naming --contract when it is not set. */
  contract: () => string;
}

type WasmMessage = { any: Any; printable: unknown };

async function executeMessage(ctx: WasmContext, msg: unknown): Promise<WasmMessage> {
  const sender = await ctx.core.senderBech32();
  const json = wasmJson(msg);
  const value = MsgExecuteContract.encode({
    sender,
    contract: ctx.contract(),
    msg: utf8(json),
    funds: [],
  }).finish();
  return {
    any: { typeUrl: '/cosmwasm.wasm.v1.MsgExecuteContract', value },
    printable: {
      '@type': '/cosmwasm.wasm.v1.MsgExecuteContract',
      sender,
      contract: ctx.contract(),
      msg: JSON.parse(json) as unknown,
      funds: [],
    },
  };
}

async function wasmMessage(ctx: WasmContext, op: VipOp): Promise<WasmMessage> {
  switch (op.kind) {
    case 'updateScores':
      return executeMessage(ctx, {
        update_scores: { stage: op.stage, scores: op.entries.map((e) => [e.addr, e.amount]) },
      });
    case 'finalize':
      return executeMessage(ctx, { finalize_stage: { stage: op.stage } });
    case 'allow':
      return executeMessage(ctx, { add_allow_list: { addr: op.addr } });
    case 'disallow':
      return executeMessage(ctx, { remove_allow_list: { addr: op.addr } });
    case 'storeWasm':
      return storeCodeMessage(await ctx.core.senderBech32(), op.wasm);
    case 'instantiateWasm':
      return instantiateMessage(await ctx.core.senderBech32(), op);
    default:
      throw new InputError('unsupported_op', `${op.kind} is not a Wasm operation`);
  }
}

function storeCodeMessage(sender: string, wasm: Uint8Array): WasmMessage {
  const value = MsgStoreCode.encode({ sender, wasmByteCode: wasm }).finish();
  return {
    any: { typeUrl: '/cosmwasm.wasm.v1.MsgStoreCode', value },
    printable: {
      '@type': '/cosmwasm.wasm.v1.MsgStoreCode',
      sender,
      wasm_byte_code: `<${wasm.length} bytes>`,
    },
  };
}

function instantiateMessage(sender: string, op: Extract<VipOp, { kind: 'instantiateWasm' }>): WasmMessage {
  const json = wasmJson({ allow_list: op.allowList, init_stage: op.initStage });
  const value = MsgInstantiateContract.encode({
    sender,
    admin: op.admin,
    codeId: op.codeId,
    label: op.label,
    msg: utf8(json),
    funds: [],
  }).finish();
  return {
    any: { typeUrl: '/cosmwasm.wasm.v1.MsgInstantiateContract', value },
    printable: {
      '@type': '/cosmwasm.wasm.v1.MsgInstantiateContract',
      sender,
      admin: op.admin,
      code_id: op.codeId.toString(),
      label: op.label,
      msg: JSON.parse(json) as unknown,
      funds: [],
    },
  };
}

async function smartQuery(
  ctx: WasmContext,
  query: unknown,
): Promise<{ ok: true; data: unknown } | { ok: false; message: string }> {
  const q = Buffer.from(wasmJson(query)).toString('base64');
  const { status, body } = await ctx.rest.get(
    `/cosmwasm/wasm/v1/contract/${ctx.contract()}/smart/${encodeURIComponent(q)}`,
  );
  if (status === 200) return { ok: true, data: (body as { data: unknown }).data };
  return { ok: false, message: (body as { message?: string }).message ?? `HTTP ${status}` };
}

async function readInitStage(ctx: WasmContext): Promise<bigint | undefined> {
  const key = encodeURIComponent(Buffer.from('init_stage').toString('base64'));
  const { status, body } = await ctx.rest.get(`/cosmwasm/wasm/v1/contract/${ctx.contract()}/raw/${key}`);
  const data = (body as { data?: string }).data;
  if (status !== 200 || !data) return undefined;
  return BigInt(Buffer.from(data, 'base64').toString('utf8'));
}

async function readStageInfo(ctx: WasmContext, stage: bigint): Promise<StageInfo | undefined> {
  const r = await smartQuery(ctx, { get_stage_info: { stage } });
  if (!r.ok) {
    if (/not found/i.test(r.message)) return undefined;
    throw new AppError('query_failed', `get_stage_info: ${r.message}`, { retryable: true });
  }
  const d = r.data as { stage: number | string; total_score: number | string; is_finalized: boolean };
  return { stage: BigInt(d.stage), totalScore: BigInt(d.total_score), isFinalized: d.is_finalized };
}

async function readScore(ctx: WasmContext, stage: bigint, addr: string): Promise<bigint> {
  const r = await smartQuery(ctx, { get_score: { addr, stage } });
  if (!r.ok) {
    if (/not found/i.test(r.message)) return 0n;
    throw new AppError('query_failed', `get_score: ${r.message}`);
  }
  return BigInt((r.data as { score: number | string }).score);
}

/** No allow-list query exists; an empty update_scores is checked against the allow list only. */
async function isAllowedWriter(ctx: WasmContext, addr: string): Promise<boolean | undefined> {
  if (addr !== (await ctx.core.senderBech32())) return undefined;
  const { any } = await executeMessage(ctx, { update_scores: { stage: 1n, scores: [] } });
  return ctx.core.simulate([any]).then(
    () => true,
    () => false,
  );
}
