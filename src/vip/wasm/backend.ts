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
  const { core, rest, prefix } = options;
  const contract = () => {
    if (!options.contract)
      throw new InputError('missing_contract', 'the contract address is required (--contract)');
    return options.contract;
  };

  async function execute(msg: unknown): Promise<{ any: Any; printable: unknown }> {
    const sender = await core.senderBech32();
    const json = wasmJson(msg);
    const value = MsgExecuteContract.encode({
      sender,
      contract: contract(),
      msg: utf8(json),
      funds: [],
    }).finish();
    return {
      any: { typeUrl: '/cosmwasm.wasm.v1.MsgExecuteContract', value },
      printable: {
        '@type': '/cosmwasm.wasm.v1.MsgExecuteContract',
        sender,
        contract: contract(),
        msg: JSON.parse(json) as unknown,
        funds: [],
      },
    };
  }

  async function message(op: VipOp): Promise<{ any: Any; printable: unknown }> {
    switch (op.kind) {
      case 'updateScores':
        return execute({
          update_scores: { stage: op.stage, scores: op.entries.map((e) => [e.addr, e.amount]) },
        });
      case 'finalize':
        return execute({ finalize_stage: { stage: op.stage } });
      case 'allow':
        return execute({ add_allow_list: { addr: op.addr } });
      case 'disallow':
        return execute({ remove_allow_list: { addr: op.addr } });
      case 'storeWasm': {
        const sender = await core.senderBech32();
        const value = MsgStoreCode.encode({ sender, wasmByteCode: op.wasm }).finish();
        return {
          any: { typeUrl: '/cosmwasm.wasm.v1.MsgStoreCode', value },
          printable: {
            '@type': '/cosmwasm.wasm.v1.MsgStoreCode',
            sender,
            wasm_byte_code: `<${op.wasm.length} bytes>`,
          },
        };
      }
      case 'instantiateWasm': {
        const sender = await core.senderBech32();
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
      default:
        throw new InputError('unsupported_op', `${op.kind} is not a Wasm operation`);
    }
  }

  async function smart(
    query: unknown,
  ): Promise<{ ok: true; data: unknown } | { ok: false; message: string }> {
    const q = Buffer.from(wasmJson(query)).toString('base64');
    const { status, body } = await rest.get(
      `/cosmwasm/wasm/v1/contract/${contract()}/smart/${encodeURIComponent(q)}`,
    );
    if (status === 200) return { ok: true, data: (body as { data: unknown }).data };
    return { ok: false, message: (body as { message?: string }).message ?? `HTTP ${status}` };
  }

  return {
    vm: 'wasm',
    senderAddress: () => core.senderBech32(),
    normaliseAddress: (text) => normaliseWasmAddress(text, prefix),
    async initStage() {
      const key = encodeURIComponent(Buffer.from('init_stage').toString('base64'));
      const { status, body } = await rest.get(`/cosmwasm/wasm/v1/contract/${contract()}/raw/${key}`);
      const data = (body as { data?: string }).data;
      if (status !== 200 || !data) return undefined;
      return BigInt(Buffer.from(data, 'base64').toString('utf8'));
    },
    async stageInfo(stage): Promise<StageInfo | undefined> {
      const r = await smart({ get_stage_info: { stage } });
      if (!r.ok) {
        if (/not found/i.test(r.message)) return undefined;
        throw new AppError('query_failed', `get_stage_info: ${r.message}`, { retryable: true });
      }
      const d = r.data as { stage: number | string; total_score: number | string; is_finalized: boolean };
      return { stage: BigInt(d.stage), totalScore: BigInt(d.total_score), isFinalized: d.is_finalized };
    },
    async score(stage, addr) {
      const r = await smart({ get_score: { addr, stage } });
      if (!r.ok) {
        if (/not found/i.test(r.message)) return 0n;
        throw new AppError('query_failed', `get_score: ${r.message}`);
      }
      return BigInt((r.data as { score: number | string }).score);
    },
    writers: async () => undefined,
    // No allow-list query exists; an empty update_scores is checked against the allow list only.
    async isWriter(addr) {
      if (addr !== (await core.senderBech32())) return undefined;
      const { any } = await execute({ update_scores: { stage: 1n, scores: [] } });
      return core.simulate([any]).then(
        () => true,
        () => false,
      );
    },
    plan: async (op, tuning) => {
      const { any, printable } = await message(op);
      return core.plan([any], [printable], tuning?.gasMultiplier);
    },
    sign: (planned) => core.sign(planned),
    broadcast: (tx) => core.broadcast(tx),
    lookup: (hash) => core.lookup(hash),
  };
}
