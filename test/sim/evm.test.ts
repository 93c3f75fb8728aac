import { beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { serializeTransaction, type Hex } from 'viem';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { MsgCall } from '@initia/initia.proto/minievm/evm/v1/tx.js';
import type { Simulator, SimulatorUrls } from '../../src/sim/types.js';
import { sample, shape, type Ev } from './helpers/events.js';
import { useSimulators } from './helpers/sims.js';

const HEAD = 200;
const start = useSimulators();
let sim: Simulator;
let urls: SimulatorUrls;
beforeAll(async () => {
  ({ sim, urls } = await start({ vm: 'evm', chainId: 'yominet-1', head: HEAD, txsPerBlock: '4', seed: 9 }));
});

async function rpc<T = unknown>(method: string, params: unknown[]): Promise<T> {
  const res = await fetch(urls.jsonRpc!, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result as T;
}

interface Receipt {
  from: string;
  to: string | null;
  status: string;
  type: string;
  transactionHash: string;
  logs: Array<{ address: string; topics: string[] }>;
  [k: string]: unknown;
}
interface Frame {
  type: string;
  error?: string;
  calls?: Frame[];
}

const wrappedTxs = (): Array<{ height: number; index: number; evmHash: string; hash: string }> =>
  Array.from({ length: HEAD }, (_, i) => sim.truth.block(i + 1)).flatMap((b) =>
    b.txs
      .filter((t) => t.evmHash !== undefined)
      .map((t) => ({ height: b.height, index: t.index, evmHash: t.evmHash!, hash: t.hash })),
  );

describe('EVM rollup (minievm shapes)', () => {
  it('derives the EVM chain id from the chain id (yominet-1 → 428962654539583)', async () => {
    expect(await rpc('eth_chainId', [])).toBe('0x' + 428962654539583n.toString(16));
  });

  it('wrapped Ethereum txs: MsgCall, mode 9999, 65-byte r‖s‖v signature that recovers the signer', async () => {
    const wrapped = wrappedTxs().slice(0, 12);
    expect(wrapped.length).toBeGreaterThan(5);
    for (const w of wrapped) {
      const block = (await (await fetch(`${urls.rpc}/block?height=${w.height}`)).json()) as {
        result: { block: { data: { txs: string[] } } };
      };
      const raw = TxRaw.decode(Buffer.from(block.result.block.data.txs[w.index]!, 'base64'));
      const auth = AuthInfo.decode(raw.authInfoBytes);
      expect(auth.signerInfos[0]!.modeInfo!.single!.mode).toBe(9999);
      const body = TxBody.decode(raw.bodyBytes);
      expect(JSON.parse(body.memo)).toEqual({ type: 2, gas_fee_cap: '1000', gas_tip_cap: '1' });
      const call = MsgCall.decode(body.messages[0]!.value);
      expect(Buffer.from(MsgCall.encode(call).finish()).equals(Buffer.from(body.messages[0]!.value))).toBe(
        true,
      );
      const sig = raw.signatures[0]!;
      expect(sig.length).toBe(65);
      const tx = await rpc<Record<string, string>>('eth_getTransactionByHash', [w.evmHash]);
      expect(tx.to!.toLowerCase()).toBe(call.contractAddr.toLowerCase());
      expect(tx.input).toBe(call.input);
      const unsigned = {
        type: 'eip1559' as const,
        chainId: Number(BigInt(tx.chainId!)),
        nonce: Number(BigInt(tx.nonce!)),
        gas: BigInt(tx.gas!),
        maxFeePerGas: BigInt(tx.maxFeePerGas!),
        maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas!),
        to: tx.to as Hex,
        value: 0n,
        data: tx.input as Hex,
      };
      const digest = keccak_256(Buffer.from(serializeTransaction(unsigned).slice(2), 'hex'));
      const recovered = secp256k1.Signature.fromBytes(
        Uint8Array.from([sig[64]!, ...sig.subarray(0, 64)]),
        'recovered',
      ).recoverPublicKey(digest);
      const address =
        '0x' + Buffer.from(keccak_256(recovered.toBytes(false).subarray(1)).subarray(12)).toString('hex');
      expect(address).toBe(tx.from);
      const yParity = Number(BigInt(tx.yParity!));
      const signed = serializeTransaction(unsigned, {
        r: ('0x' + BigInt(tx.r!).toString(16).padStart(64, '0')) as Hex,
        s: ('0x' + BigInt(tx.s!).toString(16).padStart(64, '0')) as Hex,
        yParity,
      });
      expect('0x' + Buffer.from(keccak_256(Buffer.from(signed.slice(2), 'hex'))).toString('hex')).toBe(
        w.evmHash,
      );
      expect(await rpc('cosmos_cosmosTxHashByTxHash', [w.evmHash])).toBe('0x' + w.hash.toLowerCase());
    }
  });

  it('receipts carry minievm fields only; Cosmos txs get fake legacy txs; ids map both ways', async () => {
    const receipts = await rpc<Receipt[]>('eth_getBlockReceipts', ['0x' + (50).toString(16)]);
    const truth = sim.truth.block(50);
    expect(receipts).toHaveLength(truth.txs.length);
    const keys = [
      'blockHash',
      'blockNumber',
      'contractAddress',
      'cumulativeGasUsed',
      'effectiveGasPrice',
      'from',
      'gasUsed',
      'logs',
      'logsBloom',
      'status',
      'to',
      'transactionHash',
      'transactionIndex',
      'type',
    ];
    for (const [i, r] of receipts.entries()) {
      expect(Object.keys(r).sort()).toEqual(keys);
      for (const l of r.logs) expect(l.address).toBe(l.address.toLowerCase());
      const t = truth.txs[i]!;
      if (t.evmHash) expect(r.transactionHash).toBe(t.evmHash);
      else {
        expect(r.from).toBe('0x0000000000000000000000000000000000000000');
        expect(r.to).toBeNull();
        const fake = await rpc<Record<string, string>>('eth_getTransactionByHash', [r.transactionHash]);
        expect(fake.input).toBe('0x' + t.hash.toLowerCase());
        expect(await rpc('cosmos_txHashByCosmosTxHash', ['0x' + t.hash.toLowerCase()])).toBe(
          r.transactionHash,
        );
      }
    }
  });

  it('traces: only Ethereum txs, nested calls, reverted txs with error and status 0x0', async () => {
    let nested = 0;
    let reverted = 0;
    for (let h = 2; h <= HEAD; h++) {
      const traces = await rpc<Array<{ txHash: string; result: Frame }>>('debug_traceBlockByNumber', [
        '0x' + h.toString(16),
        { tracer: 'callTracer' },
      ]);
      const wrapped = sim.truth.block(h).txs.filter((t) => t.evmHash);
      expect(traces.map((t) => t.txHash)).toEqual(wrapped.map((t) => t.evmHash));
      for (const t of traces) {
        if (t.result.calls?.length) {
          nested++;
          expect(sim.truth.internalTxs(t.txHash)).toHaveLength(
            1 + t.result.calls.length + t.result.calls.reduce((n, c) => n + (c.calls?.length ?? 0), 0),
          );
        }
        if (t.result.error) {
          reverted++;
          expect(t.result.error).toBe('execution reverted');
          expect((await rpc<Receipt>('eth_getTransactionReceipt', [t.txHash])).status).toBe('0x0');
          expect(sim.truth.block(h).txs.find((x) => x.evmHash === t.txHash)!.success).toBe(false);
        }
        expect(await rpc('debug_traceTransaction', [t.txHash, { tracer: 'callTracer' }])).toEqual(t.result);
      }
    }
    expect(nested).toBeGreaterThan(0);
    expect(reverted).toBeGreaterThan(0);
    await expect(rpc('debug_traceBlockByNumber', ['0x1', { tracer: 'callTracer' }])).rejects.toThrow(
      'genesis is not traceable',
    );
  });

  it('eth_call balanceOf in a batch matches truth.holders; tokenURI and name match the NFT truth', async () => {
    const denom = 'uusdc';
    const token = (
      (await (await fetch(`${urls.rest}/minievm/evm/v1/contracts/by_denom?denom=${denom}`)).json()) as {
        address: string;
      }
    ).address;
    const holders = sim.truth.holders(denom, HEAD).slice(0, 10);
    const { toHex } = await import('viem');
    const { accountBytesFromString } = await import('../../src/shared/address.js');
    const batch = [
      { jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] },
      ...holders.map((h, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'eth_call',
        params: [
          {
            to: token,
            data: '0x70a08231' + toHex(accountBytesFromString(h.account, 'init')).slice(2).padStart(64, '0'),
          },
          'latest',
        ],
      })),
    ];
    const answers = (await (
      await fetch(urls.jsonRpc!, { method: 'POST', body: JSON.stringify(batch) })
    ).json()) as Array<{ id: number; result: string }>;
    expect(answers[0]!.result).toBe('0x' + HEAD.toString(16));
    holders.forEach((h, i) => expect(BigInt(answers[i + 1]!.result).toString()).toBe(h.amount));
    const nft = sim.truth.nftTokens(HEAD)[0]!;
    const uri = await rpc<string>('eth_call', [
      { to: nft.collectionAddr, data: '0xc87b56dd' + BigInt(nft.tokenId).toString(16).padStart(64, '0') },
      'latest',
    ]);
    expect(Buffer.from(uri.slice(130), 'hex').toString('utf8').replace(/\0+$/, '')).toBe(nft.uri);
  });

  it('fee events match the real minievm sample; EVM addresses are EIP-55 in events, topics lower-case', async () => {
    const results = (await (await fetch(`${urls.rpc}/block_results?height=60`)).json()) as {
      result: { txs_results: Array<{ events: Ev[] }> };
    };
    const real = sample('cosmos/evm/bank-evm.json', 'bankSendWithEvmLogTxResponse');
    const anteOf = (events: Ev[]): string[] =>
      shape(events.filter((e) => !(e.attributes ?? []).some((a) => a.key === 'msg_index'))).slice(0, 9);
    const { getAddress } = await import('viem');
    for (const t of results.result.txs_results) {
      expect(anteOf(t.events)).toEqual(anteOf(real.events));
      for (const e of t.events) {
        for (const a of e.attributes ?? []) {
          if (e.type === 'call' && a.key === 'contract') expect(a.value).toBe(getAddress(a.value!));
          if (e.type === 'evm' && a.key === 'log') {
            const log = JSON.parse(a.value!) as { address: string; topics?: string[] };
            expect(log.address).toBe(getAddress(log.address));
            for (const topic of log.topics ?? []) expect(topic).toMatch(/^0x[0-9a-f]{64}$/);
          }
        }
      }
    }
  });
});
