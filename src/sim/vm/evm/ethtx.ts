import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { serializeTransaction, type Hex } from 'viem';
import { MsgCall } from '@initia/initia.proto/minievm/evm/v1/tx.js';
import type { SimAccount } from '../../chain/keys.js';
import type { EncodedMsg } from '../../chain/tx-build.js';

export const MSG_CALL = '/minievm.evm.v1.MsgCall';

/** The EIP-1559 fields a caller chooses; the signed tx carries them over unchanged. */
interface EthTxFields {
  to: string;
  nonce: number;
  gas: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  input: string;
}

/** A signed EIP-1559 transaction as minievm wraps it into a Cosmos tx. */
export interface EthTx extends EthTxFields {
  hash: string;
  from: string;
  r: string;
  s: string;
  yParity: number;
  /** r ‖ s ‖ v (65 bytes), the Cosmos signature of the wrapper. */
  signature65: Uint8Array;
}

export interface EthTxInput extends EthTxFields {
  chainId: bigint;
  signer: SimAccount;
  fastSignature: boolean;
}

export function signEthTx(tx: EthTxInput): EthTx {
  const unsigned = {
    type: 'eip1559' as const,
    chainId: Number(tx.chainId),
    nonce: tx.nonce,
    gas: BigInt(tx.gas),
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    to: tx.to as Hex,
    value: 0n,
    data: tx.input as Hex,
  };
  const preimage = Buffer.from(serializeTransaction(unsigned).slice(2), 'hex');
  let r: bigint;
  let s: bigint;
  let yParity: number;
  if (tx.fastSignature) {
    const d = createHash('sha512').update(preimage).digest();
    r = BigInt('0x' + d.subarray(0, 32).toString('hex'));
    s = BigInt('0x' + d.subarray(32, 64).toString('hex')) >> 2n;
    yParity = d[0]! & 1;
  } else {
    const sig = secp256k1.sign(keccak_256(preimage), tx.signer.privateKey, {
      prehash: false,
      format: 'recovered',
    });
    yParity = sig[0]!;
    r = BigInt('0x' + Buffer.from(sig.subarray(1, 33)).toString('hex'));
    s = BigInt('0x' + Buffer.from(sig.subarray(33, 65)).toString('hex'));
  }
  const signed = serializeTransaction(unsigned, { r: toHex32(r), s: toHex32(s), yParity });
  const signature65 = new Uint8Array(65);
  signature65.set(Buffer.from(toHex32(r).slice(2), 'hex'), 0);
  signature65.set(Buffer.from(toHex32(s).slice(2), 'hex'), 32);
  signature65[64] = yParity;
  return {
    hash: '0x' + Buffer.from(keccak_256(Buffer.from(signed.slice(2), 'hex'))).toString('hex'),
    from: tx.signer.hex,
    to: tx.to,
    nonce: tx.nonce,
    gas: tx.gas,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    input: tx.input,
    r: '0x' + r.toString(16),
    s: '0x' + s.toString(16),
    yParity,
    signature65,
  };
}

const toHex32 = (v: bigint): Hex => `0x${v.toString(16).padStart(64, '0')}`;

export function msgCall(sender: string, contract: string, input: string): EncodedMsg {
  return {
    typeUrl: MSG_CALL,
    value: MsgCall.encode({
      sender,
      contractAddr: contract,
      input,
      value: '0',
      accessList: [],
      authList: [],
    }).finish(),
    json:
      `{"@type":"${MSG_CALL}","sender":"${sender}","contract_addr":"${contract}","input":"${input}",` +
      `"value":"0","access_list":[],"auth_list":[]}`,
    amino: { type: 'evm/MsgCall', value: { sender, contract_addr: contract, input, value: '0' } },
    target: { evmCall: { contract, input } },
  };
}

/** Legacy fake tx minievm's indexer records for a Cosmos tx with EVM logs: all-zero, input = cosmos hash. */
export function fakeEthTxHash(cosmosHash: string): string {
  // RLP([nonce 0, gasPrice 0, gas 0, to nil, value 0, data(32 bytes), v 0, r 0, s 0])
  const data = Buffer.from(cosmosHash, 'hex');
  const payload = Buffer.concat([
    Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0xa0]),
    data,
    Buffer.from([0x80, 0x80, 0x80]),
  ]);
  const rlp = Buffer.concat([Buffer.from([0xc0 + payload.length]), payload]);
  return '0x' + Buffer.from(keccak_256(rlp)).toString('hex');
}
