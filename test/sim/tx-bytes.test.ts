import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { AuthInfo, SignDoc, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { MsgExecuteContract, MsgInstantiateContract } from 'cosmjs-types/cosmwasm/wasm/v1/tx';
import { MsgExecute } from '@initia/initia.proto/initia/move/v1/tx.js';
import { MsgRecvPacket } from '@initia/initia.proto/ibc/core/channel/v1/tx.js';
import { MsgCall } from '@initia/initia.proto/minievm/evm/v1/tx.js';
import { createHash } from 'node:crypto';
import type { VmType } from '../../src/sim/types.js';
import { cosmosAddress, ethAddress } from '../../src/sim/chain/keys.js';
import { toBech32 } from '../../src/shared/address.js';
import { sortedJson } from '../../src/sim/chain/tx-build.js';
import { useSimulators } from './helpers/sims.js';

type Codec = { decode(b: Uint8Array): unknown; encode(m: never): { finish(): Uint8Array } };
const CODECS: Record<string, Codec> = {
  '/cosmos.bank.v1beta1.MsgSend': MsgSend,
  '/initia.move.v1.MsgExecute': MsgExecute,
  '/ibc.core.channel.v1.MsgRecvPacket': MsgRecvPacket,
  '/cosmwasm.wasm.v1.MsgExecuteContract': MsgExecuteContract,
  '/cosmwasm.wasm.v1.MsgInstantiateContract': MsgInstantiateContract,
  '/minievm.evm.v1.MsgCall': MsgCall,
};

/** Amino names wallets sign under for EIP-191. */
const AMINO: Record<string, string> = {
  '/cosmos.bank.v1beta1.MsgSend': 'cosmos-sdk/MsgSend',
  '/initia.move.v1.MsgExecute': 'move/MsgExecute',
  '/cosmwasm.wasm.v1.MsgExecuteContract': 'wasm/MsgExecuteContract',
  '/cosmwasm.wasm.v1.MsgInstantiateContract': 'wasm/MsgInstantiateContract',
  '/minievm.evm.v1.MsgCall': 'evm/MsgCall',
};

const sha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();

interface RestMsg {
  '@type': string;
  [k: string]: unknown;
}
interface RestTx {
  body: { messages: RestMsg[]; memo: string };
  auth_info: {
    fee: { amount: unknown[]; gas_limit: string };
    signer_infos: Array<{ sequence: string; mode_info: { single: { mode: string | number } } }>;
  };
  signatures: string[];
}

/** The amino form a wallet signs for EIP-191, rebuilt from the REST JSON (not from the generator). */
function aminoMsg(m: RestMsg): unknown {
  const { '@type': type, ...rest } = m;
  // Amino JSON omits empty repeated fields unless marked dont_omitempty (coins are).
  const value = Object.fromEntries(
    Object.entries(rest).filter(
      ([k, v]) => k === 'amount' || k === 'funds' || !(Array.isArray(v) && v.length === 0),
    ),
  );
  const name = AMINO[type];
  if (!name) throw new Error(`no amino name for ${type}`);
  return { type: name, value };
}

async function accountNumberOf(rest: string, address: string): Promise<number> {
  const res = await fetch(`${rest}/cosmos/auth/v1beta1/accounts/${address}`);
  const body = (await res.json()) as { account: { account_number: string } };
  return Number(body.account.account_number);
}

function roundTrips(bytes: Buffer): {
  raw: ReturnType<typeof TxRaw.decode>;
  auth: ReturnType<typeof AuthInfo.decode>;
} {
  const raw = TxRaw.decode(bytes);
  expect(Buffer.from(TxRaw.encode(raw).finish()).equals(bytes)).toBe(true);
  const body = TxBody.decode(raw.bodyBytes);
  expect(Buffer.from(TxBody.encode(body).finish()).equals(Buffer.from(raw.bodyBytes))).toBe(true);
  const auth = AuthInfo.decode(raw.authInfoBytes);
  expect(Buffer.from(AuthInfo.encode(auth).finish()).equals(Buffer.from(raw.authInfoBytes))).toBe(true);
  for (const any of body.messages) {
    const codec = CODECS[any.typeUrl];
    if (!codec) throw new Error(`no codec for ${any.typeUrl}`);
    expect(
      Buffer.from(codec.encode(codec.decode(any.value) as never).finish()).equals(Buffer.from(any.value)),
    ).toBe(true);
  }
  return { raw, auth };
}

const start = useSimulators();

describe.each<VmType>(['move', 'wasm', 'evm'])('simulated tx bytes (%s)', (vm) => {
  it('decode and re-encode byte-identically, hash is upper-case sha256, DIRECT and EIP-191 signatures verify', async () => {
    const { sim, urls } = await start({ vm, head: 400, txsPerBlock: '0-6', seed: 7 });
    const modes = new Set<string | number>();
    const keyTypes = new Set<string>();
    let verified = 0;
    for (let h = 1; h <= 50; h++) {
      const block = (await (await fetch(`${urls.rpc}/block?height=${h}`)).json()) as {
        result: { block: { data: { txs: string[] } } };
      };
      const rest = (await (
        await fetch(`${urls.rest}/cosmos/tx/v1beta1/txs/block/${h}?pagination.limit=100`)
      ).json()) as { txs: RestTx[] };
      const truth = sim.truth.block(h);
      for (const [i, b64] of block.result.block.data.txs.entries()) {
        const bytes = Buffer.from(b64, 'base64');
        expect(sha256(bytes).toString('hex').toUpperCase()).toBe(truth.txs[i]!.hash);
        const { raw, auth } = roundTrips(bytes);
        const info = auth.signerInfos[0]!;
        const pub = PubKey.decode(info.publicKey!.value).key;
        const isEth = info.publicKey!.typeUrl.includes('ethsecp256k1');
        keyTypes.add(info.publicKey!.typeUrl);
        const signer = toBech32(isEth ? ethAddress(pub) : cosmosAddress(pub), 'init');
        expect(signer).toBe(truth.txs[i]!.signer);
        const restTx = rest.txs[i]!;
        expect(restTx.signatures[0]).toBe(Buffer.from(raw.signatures[0]!).toString('base64'));
        const mode = info.modeInfo!.single!.mode;
        modes.add(restTx.auth_info.signer_infos[0]!.mode_info.single.mode);
        if ((mode as number) === 9999) continue; // wrapped Ethereum txs: verified in evm.test.ts
        const accountNumber = await accountNumberOf(urls.rest, signer);
        let signBytes: Uint8Array;
        if (mode === 191) {
          const doc = sortedJson({
            account_number: String(accountNumber),
            chain_id: sim.options.chainId,
            fee: { amount: restTx.auth_info.fee.amount, gas: restTx.auth_info.fee.gas_limit },
            memo: restTx.body.memo,
            msgs: restTx.body.messages.map(aminoMsg),
            sequence: restTx.auth_info.signer_infos[0]!.sequence,
          });
          signBytes = Buffer.concat([
            Buffer.from(`\x19Ethereum Signed Message:\n${Buffer.byteLength(doc)}`),
            Buffer.from(doc),
          ]);
        } else {
          expect(mode).toBe(1);
          signBytes = SignDoc.encode({
            bodyBytes: raw.bodyBytes,
            authInfoBytes: raw.authInfoBytes,
            chainId: sim.options.chainId,
            accountNumber: BigInt(accountNumber),
          }).finish();
        }
        const digest = isEth ? keccak_256(signBytes) : sha256(signBytes);
        expect(secp256k1.verify(raw.signatures[0]!, digest, pub, { prehash: false, lowS: true })).toBe(true);
        verified++;
      }
    }
    expect(verified).toBeGreaterThan(40);
    expect(modes.has('SIGN_MODE_DIRECT') && modes.has('SIGN_MODE_EIP_191')).toBe(true);
    if (vm === 'evm') expect(modes.has(9999)).toBe(true);
    expect(keyTypes.size).toBe(2);
  });
});
