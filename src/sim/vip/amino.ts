import type {
  MsgExecuteContract,
  MsgInstantiateContract,
  MsgStoreCode,
} from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import type { MsgExecute, MsgPublish } from '@initia/initia.proto/initia/move/v1/tx.js';

/** The messages the VIP chain model decodes (tx-decode.ts) and signs over in amino JSON (here). */
export type DecodedMsg =
  | { type: '/initia.move.v1.MsgExecute'; value: MsgExecute }
  | { type: '/initia.move.v1.MsgPublish'; value: MsgPublish }
  | { type: '/cosmwasm.wasm.v1.MsgStoreCode'; value: MsgStoreCode }
  | { type: '/cosmwasm.wasm.v1.MsgInstantiateContract'; value: MsgInstantiateContract }
  | { type: '/cosmwasm.wasm.v1.MsgExecuteContract'; value: MsgExecuteContract };

/**
 * The node's side of SIGN_MODE_EIP_191: the legacy amino JSON sign doc rebuilt from the decoded
 * protobuf tx, as cosmos-sdk's x/tx aminojson encoder writes it (fields in name order, empty
 * fields left out unless marked dont_omitempty, 64-bit integers quoted, bytes base64, CosmWasm
 * `msg` inlined after a Go interface{} round trip). Written apart from the client's encoder on
 * purpose: the two must agree on every byte for a Ledger-signed tx to be accepted here.
 */

/** A Go json.Marshal string: JSON.stringify plus \u escapes for <, >, & and U+2028/U+2029. */
function str(text: string): string {
  let out = '';
  for (const ch of JSON.stringify(text)) {
    const code = ch.charCodeAt(0);
    out +=
      ch === '<' || ch === '>' || ch === '&' || code === 0x2028 || code === 0x2029
        ? '\\u' + code.toString(16).padStart(4, '0')
        : ch;
  }
  return out;
}

/** Go's json.Marshal of a decoded interface{}: maps sorted by UTF-8 key bytes, numbers as float64. */
function goValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return str(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (Array.isArray(v)) return '[' + v.map(goValue).join(',') + ']';
  const keys = Object.keys(v as object).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return '{' + keys.map((k) => str(k) + ':' + goValue((v as Record<string, unknown>)[k])).join(',') + '}';
}

/** inline_json: the node refuses to sign over bytes that are not JSON. */
function inline(bytes: Uint8Array): string {
  return goValue(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown);
}

const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** One "key":value pair, or nothing when the amino encoder would omit the field. */
type Field = [string, string | undefined];

function object(fields: Field[]): string {
  // Written in name order already; kept explicit so each message reads like its proto.
  return '{' + fields.flatMap(([k, v]) => (v === undefined ? [] : [`"${k}":${v}`])).join(',') + '}';
}

const optStr = (s: string) => (s === '' ? undefined : str(s));
const optList = (items: string[]) => (items.length === 0 ? undefined : '[' + items.join(',') + ']');
const coinList = (coins: { denom: string; amount: string }[]) =>
  '[' +
  coins
    .map((c) =>
      object([
        ['amount', str(c.amount)],
        ['denom', str(c.denom)],
      ]),
    )
    .join(',') +
  ']';

function msgValue(m: DecodedMsg): [string, string] {
  switch (m.type) {
    case '/initia.move.v1.MsgExecute': {
      const v = m.value;
      return [
        'move/MsgExecute',
        object([
          ['args', optList(v.args.map((a) => str(base64(a))))],
          ['function_name', optStr(v.functionName)],
          ['module_address', optStr(v.moduleAddress)],
          ['module_name', optStr(v.moduleName)],
          ['sender', optStr(v.sender)],
          ['type_args', optList(v.typeArgs.map(str))],
        ]),
      ];
    }
    case '/initia.move.v1.MsgPublish': {
      const v = m.value;
      return [
        'move/MsgPublish',
        object([
          ['code_bytes', optList(v.codeBytes.map((c) => str(base64(c))))],
          ['sender', optStr(v.sender)],
          ['upgrade_policy', v.upgradePolicy === 0 ? undefined : String(v.upgradePolicy)],
        ]),
      ];
    }
    case '/cosmwasm.wasm.v1.MsgStoreCode': {
      const v = m.value;
      if (v.instantiatePermission) throw new Error('instantiate_permission has no amino form here');
      return [
        'wasm/MsgStoreCode',
        object([
          ['sender', optStr(v.sender)],
          ['wasm_byte_code', v.wasmByteCode.length === 0 ? undefined : str(base64(v.wasmByteCode))],
        ]),
      ];
    }
    case '/cosmwasm.wasm.v1.MsgInstantiateContract': {
      const v = m.value;
      return [
        'wasm/MsgInstantiateContract',
        object([
          ['admin', optStr(v.admin)],
          ['code_id', v.codeId === 0n ? undefined : `"${v.codeId}"`],
          ['funds', coinList(v.funds)],
          ['label', optStr(v.label)],
          ['msg', inline(v.msg)],
          ['sender', optStr(v.sender)],
        ]),
      ];
    }
    case '/cosmwasm.wasm.v1.MsgExecuteContract': {
      const v = m.value;
      return [
        'wasm/MsgExecuteContract',
        object([
          ['contract', optStr(v.contract)],
          ['funds', coinList(v.funds)],
          ['msg', inline(v.msg)],
          ['sender', optStr(v.sender)],
        ]),
      ];
    }
  }
}

export interface SignDocFields {
  accountNumber: bigint;
  chainId: string;
  sequence: bigint;
  memo: string;
  timeoutHeight: bigint;
  gasLimit: bigint;
  fee: { denom: string; amount: string }[];
  feePayer: string;
  feeGranter: string;
  msgs: DecodedMsg[];
}

/** The amino JSON StdSignDoc text; throws when a message has no amino form (the node refuses). */
export function aminoSignDocText(d: SignDocFields): string {
  const msgs = d.msgs.map((m) => {
    const [type, value] = msgValue(m);
    return `{"type":${str(type)},"value":${value}}`;
  });
  const fee = object([
    ['amount', coinList(d.fee)],
    ['gas', `"${d.gasLimit}"`],
    ['granter', optStr(d.feeGranter)],
    ['payer', optStr(d.feePayer)],
  ]);
  return object([
    ['account_number', `"${d.accountNumber}"`],
    ['chain_id', str(d.chainId)],
    ['fee', fee],
    ['memo', str(d.memo)],
    ['msgs', '[' + msgs.join(',') + ']'],
    ['sequence', `"${d.sequence}"`],
    ['timeout_height', d.timeoutHeight === 0n ? undefined : `"${d.timeoutHeight}"`],
  ]);
}
