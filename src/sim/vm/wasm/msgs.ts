import { MsgExecuteContract, MsgInstantiateContract } from 'cosmjs-types/cosmwasm/wasm/v1/tx';
import type { EncodedMsg } from '../../chain/tx-build.js';

export const MSG_EXECUTE_CONTRACT = '/cosmwasm.wasm.v1.MsgExecuteContract';
export const MSG_INSTANTIATE_CONTRACT = '/cosmwasm.wasm.v1.MsgInstantiateContract';

/** The contract message is JSON bytes on the wire and a JSON object in REST and amino JSON. */
export function msgExecuteContract(sender: string, contract: string, msg: unknown): EncodedMsg {
  const text = JSON.stringify(msg);
  return {
    typeUrl: MSG_EXECUTE_CONTRACT,
    value: MsgExecuteContract.encode({ sender, contract, msg: Buffer.from(text), funds: [] }).finish(),
    json: `{"@type":"${MSG_EXECUTE_CONTRACT}","sender":"${sender}","contract":"${contract}","msg":${text},"funds":[]}`,
    amino: { type: 'wasm/MsgExecuteContract', value: { sender, contract, msg, funds: [] } },
    target: { wasmContract: contract },
  };
}

export function msgInstantiateContract(
  sender: string,
  codeId: number,
  label: string,
  msg: unknown,
): EncodedMsg {
  const text = JSON.stringify(msg);
  return {
    typeUrl: MSG_INSTANTIATE_CONTRACT,
    value: MsgInstantiateContract.encode({
      sender,
      admin: sender,
      codeId: BigInt(codeId),
      label,
      msg: Buffer.from(text),
      funds: [],
    }).finish(),
    json:
      `{"@type":"${MSG_INSTANTIATE_CONTRACT}","sender":"${sender}","admin":"${sender}","code_id":"${codeId}",` +
      `"label":${JSON.stringify(label)},"msg":${text},"funds":[]}`,
    amino: {
      type: 'wasm/MsgInstantiateContract',
      value: { sender, admin: sender, code_id: String(codeId), label, msg, funds: [] },
    },
  };
}
