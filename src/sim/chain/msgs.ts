import { MsgExecute } from '@initia/initia.proto/initia/move/v1/tx.js';
import { uleb128 } from '../../shared/bcs.js';
import { coinsJson, type EncodedMsg } from './tx-build.js';
import { msgSendBytes } from './tx-wire.js';
import type { Coin } from '../types.js';

export const MSG_SEND = '/cosmos.bank.v1beta1.MsgSend';
export const MSG_EXECUTE = '/initia.move.v1.MsgExecute';

export function msgSend(from: string, to: string, amount: Coin[]): EncodedMsg {
  return {
    typeUrl: MSG_SEND,
    // Hand-encoded (tx-wire): the hot path of every bank send; the tests decode it with cosmjs-types.
    value: msgSendBytes(from, to, amount),
    json: `{"@type":"${MSG_SEND}","from_address":"${from}","to_address":"${to}","amount":${coinsJson(amount)}}`,
    amino: { type: 'cosmos-sdk/MsgSend', value: { from_address: from, to_address: to, amount } },
  };
}

export interface MoveCall {
  sender: string;
  moduleAddress: string;
  moduleName: string;
  functionName: string;
  typeArgs: string[];
  /** BCS-encoded arguments. */
  args: Uint8Array[];
}

export function msgExecute(call: MoveCall): EncodedMsg {
  const args = call.args.map((a) => Buffer.from(a).toString('base64'));
  return {
    typeUrl: MSG_EXECUTE,
    value: MsgExecute.encode(call).finish(),
    json:
      `{"@type":"${MSG_EXECUTE}","sender":"${call.sender}","module_address":"${call.moduleAddress}",` +
      `"module_name":"${call.moduleName}","function_name":"${call.functionName}",` +
      `"type_args":${JSON.stringify(call.typeArgs)},"args":${JSON.stringify(args)}}`,
    target: {
      move: {
        moduleAddress: call.moduleAddress,
        moduleName: call.moduleName,
        functionName: call.functionName,
      },
    },
    amino: {
      type: 'move/MsgExecute',
      // Amino JSON omits empty repeated fields (no dont_omitempty on type_args / args).
      value: {
        sender: call.sender,
        module_address: call.moduleAddress,
        module_name: call.moduleName,
        function_name: call.functionName,
        ...(call.typeArgs.length > 0 ? { type_args: call.typeArgs } : {}),
        ...(args.length > 0 ? { args } : {}),
      },
    },
  };
}

/** Minimal BCS encoders for the arguments the workload passes. */
export const bcs = {
  u64(value: bigint | number): Uint8Array {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigUint64(0, BigInt(value), true);
    return out;
  },
  address(bytes32: Uint8Array): Uint8Array {
    return bytes32;
  },
  string(text: string): Uint8Array {
    const utf8 = new TextEncoder().encode(text);
    return concatBytes([uleb128(utf8.length), utf8]);
  },
  optionNone(): Uint8Array {
    return Uint8Array.of(0);
  },
};

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
