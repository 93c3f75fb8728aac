import { MsgExecute, MsgPublish } from '@initia/initia.proto/initia/move/v1/tx.js';
import type { Any } from '@initia/initia.proto/google/protobuf/any.js';
import { accountBytesFromString } from '../../shared/address.js';
import { AppError, InputError } from '../../shared/errors.js';
import type { CosmosCore } from '../cosmos/core.js';
import type { CosmosRest } from '../cosmos/rest.js';
import type { PlannedTx, StageInfo, VipBackend, VipOp } from '../types.js';
import { b64, bcsAddress, bcsU64, bcsVector } from './bcs.js';

export interface MoveBackendOptions {
  core: CosmosCore;
  rest: CosmosRest;
  prefix: string;
  /** Module (publisher) address; unset before publish — then the sender is used. */
  moduleAddress?: string;
}

/** Move addresses are 32 bytes; 20-byte account addresses are left-padded (BCS does the same). */
export function normaliseMoveAddress(text: string, prefix: string): string {
  const bytes = accountBytesFromString(text.trim(), prefix);
  const hex = Buffer.from(bytes).toString('hex').padStart(64, '0');
  if (/^0+$/.test(hex)) throw new InputError('invalid_address', 'zero address cannot claim a score');
  return `0x${hex}`;
}

interface ModuleStoreData {
  init_stage: string;
  deployers: { data: { key: string; value: boolean }[] };
  scores: { handle: string; length: string };
}

export function createMoveBackend(options: MoveBackendOptions): VipBackend {
  const { core, prefix } = options;
  const ctx: MoveContext = {
    core,
    rest: options.rest,
    prefix,
    moduleAddress: async () =>
      normaliseMoveAddress(options.moduleAddress ?? (await core.senderBech32()), prefix),
  };
  return {
    vm: 'move',
    senderAddress: async () => normaliseMoveAddress(await core.senderBech32(), prefix),
    normaliseAddress: (text) => normaliseMoveAddress(text, prefix),
    async initStage() {
      const store = await readModuleStore(ctx);
      return store && store.init_stage !== '0' ? BigInt(store.init_stage) : undefined;
    },
    stageInfo: (stage) => readStageInfo(ctx, stage),
    score: async (stage, addr) =>
      BigInt((await callView(ctx, 'get_score', [bcsAddress(addr), bcsU64(stage)])) as string),
    writers: async () =>
      (await readModuleStore(ctx))?.deployers.data.filter((d) => d.value).map((d) => d.key),
    isWriter: async (addr) => {
      const store = await readModuleStore(ctx);
      if (!store) return undefined;
      return store.deployers.data.some((d) => d.value && normaliseMoveAddress(d.key, prefix) === addr);
    },
    async plan(op, tuning): Promise<PlannedTx> {
      const { any, printable } = await moveMessage(ctx, op);
      return core.plan([any], [printable], tuning?.gasMultiplier);
    },
    sign: (planned) => core.sign(planned),
    broadcast: (tx) => core.broadcast(tx),
    lookup: (hash) => core.lookup(hash),
  };
}

/** What every step of the Move backend uses: the Cosmos tx core, REST, the module's address. */
interface MoveContext {
  core: CosmosCore;
  rest: CosmosRest;
  prefix: string;
  /** The module (publisher) address, 32-byte hex; the sender's before publish. */
  moduleAddress: () => Promise<string>;
}

type MoveMessage = { any: Any; printable: unknown };

async function executeMessage(ctx: MoveContext, fn: string, args: Uint8Array[]): Promise<MoveMessage> {
  const sender = await ctx.core.senderBech32();
  const msg = {
    sender,
    moduleAddress: await ctx.moduleAddress(),
    moduleName: 'vip_score',
    functionName: fn,
    typeArgs: [],
    args,
  };
  return {
    any: { typeUrl: '/initia.move.v1.MsgExecute', value: MsgExecute.encode(msg).finish() },
    printable: {
      '@type': '/initia.move.v1.MsgExecute',
      sender,
      module_address: msg.moduleAddress,
      module_name: 'vip_score',
      function_name: fn,
      type_args: [],
      args: args.map(b64),
    },
  };
}

async function moveMessage(ctx: MoveContext, op: VipOp): Promise<MoveMessage> {
  switch (op.kind) {
    case 'updateScores':
      return executeMessage(ctx, 'update_score_script', [
        bcsU64(op.stage),
        bcsVector(op.entries.map((e) => bcsAddress(e.addr))),
        bcsVector(op.entries.map((e) => bcsU64(e.amount))),
      ]);
    case 'finalize':
      return executeMessage(ctx, 'finalize_script', [bcsU64(op.stage)]);
    case 'setInitStage':
      return executeMessage(ctx, 'set_init_stage', [bcsU64(op.stage)]);
    case 'addDeployer':
      return executeMessage(ctx, 'add_deployer_script', [bcsAddress(op.addr)]);
    case 'publishMove':
      return publishMessage(await ctx.core.senderBech32(), op.modules);
    default:
      throw new InputError('unsupported_op', `${op.kind} is not a Move operation`);
  }
}

function publishMessage(sender: string, modules: Uint8Array[]): MoveMessage {
  // upgrade_policy 1 = COMPATIBLE (docs' choice; keeps later compatible upgrades possible).
  const value = MsgPublish.encode({ sender, codeBytes: modules, upgradePolicy: 1 }).finish();
  return {
    any: { typeUrl: '/initia.move.v1.MsgPublish', value },
    printable: {
      '@type': '/initia.move.v1.MsgPublish',
      sender,
      code_bytes: modules.map(b64),
      upgrade_policy: 'COMPATIBLE',
    },
  };
}

async function readModuleStore(ctx: MoveContext): Promise<ModuleStoreData | undefined> {
  const addr = await ctx.moduleAddress();
  const tag = encodeURIComponent(`${addr}::vip_score::ModuleStore`);
  const { status, body } = await ctx.rest.get(
    `/initia/move/v1/accounts/${addr}/resources/by_struct_tag?struct_tag=${tag}`,
  );
  if (status !== 200) return undefined;
  const resource = (body as { resource?: { move_resource?: string } }).resource;
  if (!resource?.move_resource) return undefined;
  return (JSON.parse(resource.move_resource) as { data: ModuleStoreData }).data;
}

async function readStageInfo(ctx: MoveContext, stage: bigint): Promise<StageInfo | undefined> {
  const store = await readModuleStore(ctx);
  if (!store) return undefined;
  const key = encodeURIComponent(b64(bcsU64(stage)));
  const { status, body } = await ctx.rest.get(
    `/initia/move/v1/tables/${store.scores.handle}/entries/by_key_bytes?key_bytes=${key}`,
  );
  if (status !== 200) return undefined;
  const entry = (body as { table_entry?: { value?: string } }).table_entry;
  if (!entry?.value) return undefined;
  const v = JSON.parse(entry.value) as { total_score: string; is_finalized: boolean };
  return { stage, totalScore: BigInt(v.total_score), isFinalized: v.is_finalized };
}

async function callView(ctx: MoveContext, fn: string, args: Uint8Array[]): Promise<unknown> {
  const addr = await ctx.moduleAddress();
  const { status, body } = await ctx.rest.post(
    `/initia/move/v1/accounts/${addr}/modules/vip_score/view_functions/${fn}`,
    {
      type_args: [],
      args: args.map(b64),
    },
  );
  const data = (body as { data?: string; message?: string }).data;
  if (status !== 200 || data === undefined) {
    throw new AppError('view_failed', `view ${fn}: ${(body as { message?: string }).message ?? status}`);
  }
  return JSON.parse(data) as unknown;
}
