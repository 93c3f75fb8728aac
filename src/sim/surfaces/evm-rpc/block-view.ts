import { keccak_256 } from '@noble/hashes/sha3.js';
import type { GeneratedBlock } from '../../chain/blocks.js';
import type { GeneratedTx } from '../../chain/assemble.js';
import { hexQuantity, ZERO_ADDRESS, type EvmLog } from '../../vm/evm/abi.js';
import { fakeEthTxHash } from '../../vm/evm/ethtx.js';
import type { PlannedTx } from '../../chain/plan.js';
import type { EvmFrame, EvmTxData } from '../../vm/evm/types.js';

/** What rendering a block's view needs of the EVM JSON-RPC context. */
export interface BlockViewContext {
  chainId: bigint;
  evmData(tx: PlannedTx): EvmTxData | undefined;
}

/** A block as the EVM JSON-RPC serves it: receipts, tx objects and traces, rendered once. */
export interface EthView {
  hash: string;
  ethHashes: string[];
  receipts: string[];
  txObjects: string[];
  traces: Array<{ txHash: string; frame: EvmFrame } | undefined>;
  logsBloom: string;
  gasUsed: number;
}

export function bloomOf(logs: EvmLog[], into = new Uint8Array(256)): Uint8Array {
  const add = (bytes: Uint8Array): void => {
    const h = keccak_256(bytes);
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
      into[255 - (bit >> 3)]! |= 1 << (bit & 7);
    }
  };
  for (const l of logs) {
    add(Buffer.from(l.address.slice(2), 'hex'));
    for (const t of l.topics) add(Buffer.from(t.slice(2), 'hex'));
  }
  return into;
}

/** All logs of a Cosmos tx's events, in order (what a fake Ethereum tx carries). */
function eventLogs(tx: GeneratedTx): EvmLog[] {
  const out: EvmLog[] = [];
  for (const e of tx.events) {
    if (e.type !== 'evm') continue;
    for (const a of e.attributes) if (a.key === 'log') out.push(JSON.parse(a.value) as EvmLog);
  }
  return out;
}

type TxData = EvmTxData | undefined;
type GeneratedTxOf = GeneratedBlock['txs'][number];

/** Where a tx sits: its block's hash and number, its index and its Ethereum hash. */
interface TxPlace {
  blockHash: string;
  number: string;
  ti: string;
  hash: string;
}

function receiptJson(
  place: TxPlace,
  tx: GeneratedTxOf,
  data: TxData,
  logs: { rlogs: unknown[]; bloom: Uint8Array },
  cumulative: number,
): string {
  const eth = data?.eth;
  const status = eth ? data.status : tx.code === 0 ? 1 : 0;
  return JSON.stringify({
    blockHash: place.blockHash,
    blockNumber: place.number,
    contractAddress: null,
    cumulativeGasUsed: hexQuantity(cumulative),
    effectiveGasPrice: hexQuantity(data?.gasPrice ?? 0n),
    from: eth ? eth.from : ZERO_ADDRESS,
    gasUsed: hexQuantity(tx.gasUsed),
    logs: logs.rlogs,
    logsBloom: '0x' + Buffer.from(logs.bloom).toString('hex'),
    status: hexQuantity(status),
    to: eth ? eth.to : null,
    transactionHash: place.hash,
    transactionIndex: place.ti,
    type: eth ? '0x2' : '0x0',
  });
}

/** The tx object: the signed Ethereum tx, or a zero placeholder for a Cosmos tx. */
function txObjectJson(ctx: BlockViewContext, place: TxPlace, tx: GeneratedTxOf, data: TxData): string {
  const { blockHash, number, ti, hash } = place;
  const eth = data?.eth;
  return JSON.stringify(
    eth
      ? {
          blockHash,
          blockNumber: number,
          from: eth.from,
          gas: hexQuantity(eth.gas),
          gasPrice: hexQuantity(eth.maxFeePerGas),
          maxFeePerGas: hexQuantity(eth.maxFeePerGas),
          maxPriorityFeePerGas: hexQuantity(eth.maxPriorityFeePerGas),
          hash,
          input: eth.input,
          nonce: hexQuantity(eth.nonce),
          to: eth.to,
          transactionIndex: ti,
          value: '0x0',
          type: '0x2',
          accessList: [],
          chainId: hexQuantity(ctx.chainId),
          v: hexQuantity(eth.yParity),
          r: eth.r,
          s: eth.s,
          yParity: hexQuantity(eth.yParity),
        }
      : {
          blockHash,
          blockNumber: number,
          from: ZERO_ADDRESS,
          gas: '0x0',
          gasPrice: '0x0',
          hash,
          input: '0x' + tx.hash.toLowerCase(),
          nonce: '0x0',
          to: null,
          transactionIndex: ti,
          value: '0x0',
          type: '0x0',
          v: '0x0',
          r: '0x0',
          s: '0x0',
        },
  );
}

export function buildView(ctx: BlockViewContext, b: GeneratedBlock): EthView {
  const blockHash = '0x' + b.hash.toLowerCase();
  const number = hexQuantity(b.height);
  const receipts: string[] = [];
  const txObjects: string[] = [];
  const traces: EthView['traces'] = [];
  const ethHashes: string[] = [];
  const blockBloom = new Uint8Array(256);
  let cumulative = 0;
  let logIndex = 0;
  b.txs.forEach((tx, index) => {
    const data = tx.plan ? ctx.evmData(tx.plan) : undefined;
    const eth = data?.eth;
    const logs = eth ? data.msgLogs : eventLogs(tx);
    const place: TxPlace = {
      blockHash,
      number,
      ti: hexQuantity(index),
      hash: eth ? eth.hash : fakeEthTxHash(tx.hash),
    };
    ethHashes.push(place.hash);
    cumulative += tx.gasUsed;
    const rlogs = logs.map((l) => ({
      address: l.address.toLowerCase(),
      topics: l.topics,
      data: l.data,
      blockNumber: number,
      transactionHash: place.hash,
      transactionIndex: place.ti,
      blockHash,
      logIndex: hexQuantity(logIndex++),
      removed: false,
    }));
    const bloom = bloomOf(logs);
    bloomOf(logs, blockBloom);
    receipts.push(receiptJson(place, tx, data, { rlogs, bloom }, cumulative));
    txObjects.push(txObjectJson(ctx, place, tx, data));
    traces.push(eth && data.trace ? { txHash: place.hash, frame: data.trace } : undefined);
  });
  return {
    hash: blockHash,
    ethHashes,
    receipts,
    txObjects,
    traces,
    logsBloom: '0x' + Buffer.from(blockBloom).toString('hex'),
    gasUsed: cumulative,
  };
}
