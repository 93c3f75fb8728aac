import type { Any } from '@initia/initia.proto/google/protobuf/any.js';
import {
  MsgExecuteContract,
  MsgInstantiateContract,
  MsgStoreCode,
} from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import { MsgExecute, MsgPublish } from '@initia/initia.proto/initia/move/v1/tx.js';
import { AppError } from '../../shared/errors.js';

/**
 * Legacy amino JSON, as SIGN_MODE_EIP_191 signs it. Initia's EIP-191 handler prefixes the
 * cosmos-sdk x/tx aminojson sign bytes, so the rules here are that encoder's: fields sorted by
 * name, empty fields omitted unless the proto says `dont_omitempty`, 64-bit integers quoted,
 * bytes as standard base64, enums as numbers, strings escaped as Go's encoding/json does, and
 * CosmWasm's `msg` inlined as JSON re-encoded through Go's `interface{}` (keys sorted, numbers
 * through float64). Real EIP-191 txs from Initia mainnet and moo-1 pin this in the tests.
 */
export interface AminoMsg {
  type: string;
  value: Record<string, unknown>;
}

export interface AminoCoin {
  denom: string;
  amount: string;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Go's json.Marshal escapes <, >, & and U+2028/9 on top of what JSON.stringify escapes. */
function goString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Go sorts map keys by their UTF-8 bytes, not by UTF-16 code units. */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Sorted-key JSON with Go's string and float64 formatting; undefined fields are left out. */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  switch (typeof value) {
    case 'string':
      return goString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value))
        throw new AppError('amino_encoding', 'a JSON number is out of float64 range');
      // Go prints negative zero as -0; JS shortest-form digits otherwise match strconv 'f'/'e'.
      return Object.is(value, -0) ? '-0' : JSON.stringify(value);
    case 'object': {
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => byUtf8(a, b));
      return `{${entries.map(([k, v]) => `${goString(k)}:${canonicalJson(v)}`).join(',')}}`;
    }
    default:
      throw new AppError('amino_encoding', `cannot encode a ${typeof value} as amino JSON`);
  }
}

/** A CosmWasm `msg` field: the bytes must be JSON; Go decodes numbers as float64 before signing. */
function inlineJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(bytes)) as unknown;
  } catch {
    throw new AppError('amino_encoding', 'contract message is not valid UTF-8 JSON');
  }
}

const coins = (list: { denom: string; amount: string }[]): AminoCoin[] =>
  list.map((c) => ({ denom: c.denom, amount: c.amount }));
/** Repeated fields without dont_omitempty disappear when empty. */
const nonEmpty = <T>(list: T[]): T[] | undefined => (list.length > 0 ? list : undefined);
const nonZero = (text: string): string | undefined => (text === '' ? undefined : text);

/** The amino form of one message the VIP tool sends (decoded from the exact bytes it signs). */
export function aminoOfAny(any: Any): AminoMsg {
  switch (any.typeUrl) {
    case '/initia.move.v1.MsgExecute': {
      const m = MsgExecute.decode(any.value);
      return {
        type: 'move/MsgExecute',
        value: {
          sender: nonZero(m.sender),
          module_address: nonZero(m.moduleAddress),
          module_name: nonZero(m.moduleName),
          function_name: nonZero(m.functionName),
          type_args: nonEmpty(m.typeArgs),
          args: nonEmpty(m.args.map(b64)),
        },
      };
    }
    case '/initia.move.v1.MsgPublish': {
      const m = MsgPublish.decode(any.value);
      return {
        type: 'move/MsgPublish',
        value: {
          sender: nonZero(m.sender),
          code_bytes: nonEmpty(m.codeBytes.map(b64)),
          upgrade_policy: m.upgradePolicy === 0 ? undefined : m.upgradePolicy,
        },
      };
    }
    case '/cosmwasm.wasm.v1.MsgStoreCode': {
      const m = MsgStoreCode.decode(any.value);
      if (m.instantiatePermission) {
        throw new AppError('amino_encoding', 'MsgStoreCode with an instantiate permission is not supported');
      }
      return {
        type: 'wasm/MsgStoreCode',
        value: {
          sender: nonZero(m.sender),
          wasm_byte_code: m.wasmByteCode.length > 0 ? b64(m.wasmByteCode) : undefined,
        },
      };
    }
    case '/cosmwasm.wasm.v1.MsgInstantiateContract': {
      const m = MsgInstantiateContract.decode(any.value);
      return {
        type: 'wasm/MsgInstantiateContract',
        value: {
          sender: nonZero(m.sender),
          admin: nonZero(m.admin),
          code_id: m.codeId === 0n ? undefined : m.codeId.toString(),
          label: nonZero(m.label),
          msg: inlineJson(m.msg),
          funds: coins(m.funds),
        },
      };
    }
    case '/cosmwasm.wasm.v1.MsgExecuteContract': {
      const m = MsgExecuteContract.decode(any.value);
      return {
        type: 'wasm/MsgExecuteContract',
        value: {
          sender: nonZero(m.sender),
          contract: nonZero(m.contract),
          msg: inlineJson(m.msg),
          funds: coins(m.funds),
        },
      };
    }
    default:
      throw new AppError('amino_encoding', `no amino JSON form for ${any.typeUrl} (EIP-191 signing)`);
  }
}

export interface AminoSignDocInput {
  accountNumber: bigint;
  chainId: string;
  fee: AminoCoin[];
  gasLimit: bigint;
  memo: string;
  msgs: AminoMsg[];
  sequence: bigint;
}

/** The StdSignDoc text (account_number … sequence; timeout_height 0 is omitted). */
export function aminoSignDoc(doc: AminoSignDocInput): string {
  return canonicalJson({
    account_number: doc.accountNumber.toString(),
    chain_id: doc.chainId,
    fee: { amount: doc.fee.map((c) => ({ amount: c.amount, denom: c.denom })), gas: doc.gasLimit.toString() },
    memo: doc.memo,
    msgs: doc.msgs,
    sequence: doc.sequence.toString(),
  });
}

/** "\x19Ethereum Signed Message:\n" + decimal length + message: what personal_sign hashes. */
export function eip191Message(message: Uint8Array): Uint8Array {
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${message.length}`, 'utf8');
  return Uint8Array.from(Buffer.concat([prefix, message]));
}
