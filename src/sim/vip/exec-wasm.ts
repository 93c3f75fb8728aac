import { sha256 } from '@noble/hashes/sha2.js';
import type {
  MsgExecuteContract,
  MsgInstantiateContract,
  MsgStoreCode,
} from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import { toBech32 } from '../../shared/address.js';
import type { MsgOutcome } from './exec-move.js';
import { parseJsonWithBigInts } from './json.js';
import { TxReject } from './tx-decode.js';
import { WasmContractError, WasmVipScore, type WasmEvent } from './wasm-model.js';

export interface WasmState {
  codes: Map<bigint, Uint8Array>;
  contracts: Map<string, { codeId: bigint; admin: string; label: string; model: WasmVipScore }>;
  nextCodeId: bigint;
  instances: bigint;
}

const attrs = (o: Record<string, string>) => Object.entries(o).map(([key, value]) => ({ key, value }));

function toEvents(contract: string, events: WasmEvent[]): MsgOutcome['events'] {
  return events.map((e) => ({
    type: e.type,
    attributes: attrs({ _contract_address: contract, ...e.attributes }),
  }));
}

function wasmFailure(err: unknown, action: 'execute' | 'instantiate'): never {
  if (err instanceof WasmContractError) {
    const inner = {
      panic: `Error calling the VM: Error executing Wasm: Wasmer runtime error: RuntimeError: Aborted: panicked at 'called \`Result::unwrap()\` on an \`Err\` value: GenericErr { msg: "${err.message}" }'`,
      generic: `Generic error: ${err.message}`,
      parse: err.message,
    }[err.kind];
    throw new TxReject(action === 'execute' ? 5 : 4, `${inner}: ${action} wasm contract failed`, 'wasm');
  }
  throw err;
}

function parseMsg(bytes: Uint8Array): Record<string, unknown> {
  try {
    const v = parseJsonWithBigInts(Buffer.from(bytes).toString('utf8'));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('expected an object');
    return v as Record<string, unknown>;
  } catch (err) {
    throw new TxReject(
      5,
      `Error parsing into type vip_score::msgs::ExecuteMsg: ${(err as Error).message}: execute wasm contract failed`,
      'wasm',
    );
  }
}

const U64_MAX = (1n << 64n) - 1n;

/** ExecuteMsg variants of the contract (docs/vip-contracts.md §1.3). */
const EXECUTE_VARIANTS = [
  'update_scores',
  'update_score',
  'increase_score',
  'decrease_score',
  'finalize_stage',
  'add_allow_list',
  'remove_allow_list',
];

/**
 * What cosmwasm-std's JSON decoder (serde-json-wasm) refuses before any contract code runs. A
 * u64 field must be a bare integer: a quoted number is "Invalid type"; a negative one or one
 * past u64::MAX is "Invalid number." (its digit loop uses checked_mul/checked_add). The tx
 * fails with StdError::ParseErr, which has no "Generic error" prefix.
 */
function checkTypes(msg: Record<string, unknown>, target: 'ExecuteMsg' | 'InstantiateMsg'): void {
  const [variant, body] = Object.entries(msg)[0] ?? [];
  const b = (body ?? {}) as Record<string, unknown>;
  const fail = (what: string): never => {
    throw new WasmContractError(`Error parsing into type vip_score::msgs::${target}: ${what}`, 'parse');
  };
  const u64 = (v: unknown) => {
    if (typeof v !== 'bigint') fail('Invalid type');
    else if (v < 0n || v > U64_MAX) fail('Invalid number.');
  };
  // Decoding comes before the contract's allow-list check, so an unknown variant fails first.
  if (target === 'ExecuteMsg' && !EXECUTE_VARIANTS.includes(String(variant))) {
    fail(
      `unknown variant \`${variant}\`, expected one of ${EXECUTE_VARIANTS.map((v) => `\`${v}\``).join(', ')}`,
    );
  }
  const fields = target === 'InstantiateMsg' ? msg : b;
  for (const key of ['stage', 'amount', 'init_stage']) if (key in fields) u64(fields[key]);
  if (variant === 'update_scores') {
    if (!Array.isArray(b.scores)) fail('missing field `scores`');
    for (const pair of b.scores as unknown[]) {
      if (!Array.isArray(pair) || typeof pair[0] !== 'string') fail('Invalid type');
      u64((pair as unknown[])[1]);
    }
  }
}

export function storeCode(state: WasmState, msg: MsgStoreCode, commit: boolean): MsgOutcome {
  const code = msg.wasmByteCode;
  const isWasm = code[0] === 0x00 && code[1] === 0x61 && code[2] === 0x73 && code[3] === 0x6d;
  const isGzip = code[0] === 0x1f && code[1] === 0x8b;
  if (!isWasm && !isGzip)
    throw new TxReject(
      2,
      'Error calling the VM: Error during static Wasm validation: create wasm contract failed',
      'wasm',
    );
  const codeId = state.nextCodeId;
  if (commit) {
    state.codes.set(codeId, code);
    state.nextCodeId += 1n;
  }
  const checksum = Buffer.from(sha256(code)).toString('hex');
  return {
    gas: 100_000n + BigInt(code.length) * 10n,
    events: [{ type: 'store_code', attributes: attrs({ code_checksum: checksum, code_id: String(codeId) }) }],
  };
}

export function instantiate(
  state: WasmState,
  msg: MsgInstantiateContract,
  prefix: string,
  commit: boolean,
): MsgOutcome {
  if (!state.codes.has(msg.codeId)) throw new TxReject(8, `code id ${msg.codeId}: not found`, 'wasm');
  const parsed = parseMsg(msg.msg);
  const body = parsed as { allow_list?: unknown; init_stage?: unknown };
  let model: WasmVipScore;
  try {
    checkTypes(parsed, 'InstantiateMsg');
    if (typeof body.init_stage !== 'bigint' || !Array.isArray(body.allow_list)) {
      throw new WasmContractError(
        'Error parsing into type vip_score::msgs::InstantiateMsg: missing or invalid field',
        'parse',
      );
    }
    model = new WasmVipScore({ allow_list: body.allow_list.map(String), init_stage: body.init_stage });
  } catch (err) {
    return wasmFailure(err, 'instantiate');
  }
  const instance = state.instances + 1n;
  const key = Buffer.concat([Buffer.from('wasm-model'), Buffer.from(`${msg.codeId}:${instance}`)]);
  const contract = toBech32(sha256(key), prefix);
  if (commit) {
    state.instances = instance;
    state.contracts.set(contract, { codeId: msg.codeId, admin: msg.admin, label: msg.label, model });
  }
  return {
    gas: 80_000n,
    events: [
      {
        type: 'instantiate',
        attributes: attrs({ _contract_address: contract, code_id: String(msg.codeId) }),
      },
      ...toEvents(contract, WasmVipScore.instantiateEvents(body.init_stage as bigint)),
    ],
  };
}

export function executeContract(state: WasmState, msg: MsgExecuteContract, commit: boolean): MsgOutcome {
  const c = state.contracts.get(msg.contract);
  if (!c) throw new TxReject(8, `no such contract ${msg.contract}: not found`, 'wasm');
  const parsed = parseMsg(msg.msg);
  try {
    checkTypes(parsed, 'ExecuteMsg');
    const out = c.model.execute(msg.sender, parsed, commit);
    return {
      gas: out.gas + BigInt(msg.msg.length) * 2n,
      events: [
        { type: 'execute', attributes: attrs({ _contract_address: msg.contract }) },
        ...toEvents(msg.contract, out.events),
      ],
    };
  } catch (err) {
    return wasmFailure(err, 'execute');
  }
}
