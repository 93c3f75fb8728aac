import { hash as oneShotHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { event, eventsJson, type SimEvent } from './events.js';
import { sha256 } from './keys.js';
import { Lru } from './lru.js';
import type { VmModel } from './plan.js';
import { blockTime, rfc3339Nano } from './time.js';
import { assembleTx, type AssembleContext, type GeneratedTx } from './assemble.js';
import { coinsText } from './tx-build.js';
import { createNormaliser } from '../truth/accounts.js';
import type { Schedule } from './workload.js';
import type { BlockTruth, Coin } from '../types.js';

export interface ChainConfig {
  chainId: string;
  seed: number;
  prefix: string;
  blockTimeMs: number;
  fastSignatures: boolean;
  schedule: Schedule;
  model: VmModel;
  feeCollectorBech32: string;
  /** Bech32 account the block's fees are paid out to at EndBlock. */
  rewardsBech32: string;
  /** Called once per generated (not cached) block. */
  onGenerate?(block: GeneratedBlock): void;
  /** Replay: the txs of a height come from recordings instead of the model. */
  txsAt?(height: number): GeneratedTx[];
}

export interface Validator {
  /** Upper-case hex, 20 bytes. */
  address: string;
  pubKeyB64: string;
}

/** Everything served about one height, rendered once. */
export interface GeneratedBlock {
  height: number;
  hash: string;
  time: string;
  txs: GeneratedTx[];
  /** cmtjson of the /block result object, UTF-8 (kept as bytes: one flat buffer per block). */
  blockBytes: Buffer;
  /** cmtjson of the /block_results result object, UTF-8. */
  resultsBytes: Buffer;
  /** The same texts decoded on demand (rarely needed). */
  readonly blockJson: string;
  readonly resultsJson: string;
  header: BlockHeader;
  readonly truth: BlockTruth;
}

export interface BlockHeader {
  height: number;
  time: string;
  lastBlockHash: string;
  lastPartsHash: string;
  lastCommitHash: string;
  dataHash: string;
  validatorsHash: string;
  consensusHash: string;
  appHash: string;
  lastResultsHash: string;
  evidenceHash: string;
  proposer: string;
  partsHash: string;
  commitSignatureB64: string;
  commitTime: string;
}

export interface Chain {
  readonly validator: Validator;
  block(height: number): GeneratedBlock;
  /** The hash of a block without generating its txs. */
  blockHash(height: number): string;
  appHash(height: number): string;
  timeOf(height: number): string;
}

/** The sequencer's (pseudo-random) signature of the commit for `height`. */
export function commitSignature(chainId: string, seed: number, height: number): string {
  return oneShotHash('sha512', `${chainId}/${seed}/vote/${height}`, 'base64');
}

const EMPTY_SHA256 = 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855';

/** RFC-6962 Merkle root (CometBFT's merkle.HashFromByteSlices); data_hash uses the tx hashes as leaves. */
export function merkleRoot(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha256(new Uint8Array(0));
  if (leaves.length === 1) return sha256(Buffer.concat([Buffer.from([0]), leaves[0]!]));
  const split = 2 ** Math.floor(Math.log2(leaves.length - 1));
  const left = merkleRoot(leaves.slice(0, split));
  const right = merkleRoot(leaves.slice(split));
  return sha256(Buffer.concat([Buffer.from([1]), left, right]));
}

/** The single sequencer: an ed25519 key from the seed; address = sha256(pubkey)[:20]. */
export function deriveValidator(seed: number): Validator {
  const valPub = ed25519.getPublicKey(sha256(`rollup-sim/validator/${seed}`));
  return {
    address: sha256(valPub).subarray(0, 20).toString('hex').toUpperCase(),
    pubKeyB64: Buffer.from(valPub).toString('base64'),
  };
}

/**
 * Hex hashes derived from the chain id, seed, a label and a height. Consecutive heights share
 * hashes (block h-1 is asked for as "last block" of h): a few are kept.
 */
function createHashDeriver(chainId: string, seed: number): (label: string, height: number) => string {
  const derived = new Map<string, string>();
  return (label, height) => {
    const input = `${chainId}/${seed}/${label}/${height}`;
    let out = derived.get(input);
    if (out === undefined) {
      if (derived.size >= 256) derived.clear();
      derived.set(input, (out = sha256(input).toString('hex').toUpperCase()));
    }
    return out;
  };
}

/** What generating a block needs besides its height. */
interface ChainParts {
  config: ChainConfig;
  derive: (label: string, height: number) => string;
  validator: { address: string; pubKeyB64: string };
  validatorsHash: string;
  consensusHash: string;
  assembleCtx: AssembleContext;
  timeOf: (h: number) => string;
  blockHash: (h: number) => string;
  appHash: (h: number) => string;
}

/** The block's txs and their result texts: recorded ones, or the model's planned txs assembled. */
function blockTxs(parts: ChainParts, height: number): { txs: GeneratedTx[]; resultJsons: string[] } {
  const { config, assembleCtx } = parts;
  const txs: GeneratedTx[] = config.txsAt ? config.txsAt(height) : [];
  const resultJsons: string[] = [];
  if (config.txsAt) {
    for (const t of txs) resultJsons.push(t.resultBytes.toString('utf8'));
  } else {
    const first = config.schedule.firstTx(height);
    const count = config.schedule.count(height);
    for (let i = 0; i < count; i++) {
      const assembled = assembleTx(assembleCtx, config.model.plan(first + i), height, i);
      txs.push(assembled.tx);
      resultJsons.push(assembled.resultJson);
    }
  }
  return { txs, resultJsons };
}

function blockHeader(parts: ChainParts, height: number, time: string, txs: GeneratedTx[]): BlockHeader {
  const { derive, blockHash, config } = parts;
  return {
    height,
    time,
    lastBlockHash: height > 1 ? blockHash(height - 1) : '',
    lastPartsHash: height > 1 ? derive('parts', height - 1) : '',
    lastCommitHash: height > 1 ? derive('commit', height - 1) : EMPTY_SHA256,
    dataHash: merkleRoot(txs.map((t) => Buffer.from(t.hash, 'hex')))
      .toString('hex')
      .toUpperCase(),
    validatorsHash: parts.validatorsHash,
    consensusHash: parts.consensusHash,
    appHash: parts.appHash(height - 1),
    lastResultsHash: height > 1 ? derive('results', height - 1) : EMPTY_SHA256,
    evidenceHash: EMPTY_SHA256,
    proposer: parts.validator.address,
    partsHash: derive('parts', height),
    commitSignatureB64: commitSignature(config.chainId, config.seed, height - 1),
    commitTime: time,
  };
}

/** EndBlock: the fee collector pays the block's fees to the operator's rewards account. */
function feePayoutEvents(config: ChainConfig, txs: GeneratedTx[]): SimEvent[] {
  const fees = sumFees(txs.map((t) => t.fee));
  if (fees.length === 0) return [];
  const feesText = coinsText(fees);
  return [
    event('coin_spent', [
      ['spender', config.feeCollectorBech32],
      ['amount', feesText],
      ['mode', 'EndBlock'],
    ]),
    event('coin_received', [
      ['receiver', config.rewardsBech32],
      ['amount', feesText],
      ['mode', 'EndBlock'],
    ]),
    event('transfer', [
      ['recipient', config.rewardsBech32],
      ['sender', config.feeCollectorBech32],
      ['amount', feesText],
      ['mode', 'EndBlock'],
    ]),
  ];
}

function generateBlock(parts: ChainParts, height: number): GeneratedBlock {
  const { config, validator, appHash } = parts;
  const { txs, resultJsons } = blockTxs(parts, height);
  const time = parts.timeOf(height);
  const header = blockHeader(parts, height, time, txs);
  const blockEvents = feePayoutEvents(config, txs);
  const gasUsed = txs.reduce((n, t) => n + t.gasUsed, 0);
  const gasWanted = txs.reduce((n, t) => n + t.gasWanted, 0);
  const hash = parts.blockHash(height);
  let truth: BlockTruth | undefined;
  const resultsBytes = renderResults(
    height,
    txs,
    resultJsons,
    `,"finalize_block_events":${eventsJson(blockEvents)},"validator_updates":null,` +
      `"consensus_param_updates":null,"app_hash":"${Buffer.from(appHash(height), 'hex').toString('base64')}"}`,
  );
  return {
    height,
    hash,
    time,
    txs,
    header,
    blockBytes: Buffer.from(renderBlock(config.chainId, hash, header, txs, validator.address)),
    resultsBytes,
    get blockJson() {
      return this.blockBytes.toString('utf8');
    },
    get resultsJson() {
      return this.resultsBytes.toString('utf8');
    },
    get truth() {
      return (truth ??= {
        height,
        hash,
        time,
        proposerAddress: validator.address,
        gasUsed: String(gasUsed),
        gasWanted: String(gasWanted),
        txs: txs.map((t) => t.truth),
      });
    },
  };
}

export function createChain(config: ChainConfig): Chain {
  const { chainId, seed } = config;
  const derive = createHashDeriver(chainId, seed);
  const validator = deriveValidator(seed);
  const timeOf = (h: number): string => {
    const t = blockTime(seed, h, config.blockTimeMs);
    return rfc3339Nano(t.ms, t.nanos);
  };
  const blockHash = (h: number): string => derive('block', h);
  const appHash = (h: number): string => (h <= 0 ? EMPTY_SHA256 : derive('app', h));
  const parts: ChainParts = {
    config,
    derive,
    validator,
    validatorsHash: derive('validators', 0),
    consensusHash: derive('consensus', 0),
    assembleCtx: {
      chainId,
      prefix: config.prefix,
      fastSignatures: config.fastSignatures,
      feeCollectorBech32: config.feeCollectorBech32,
      model: config.model,
      normalise: createNormaliser(config.prefix),
    },
    timeOf,
    blockHash,
    appHash,
  };
  const cache = new Lru<number, GeneratedBlock>(4096, 12_000, (b) => 1 + b.txs.length);
  return {
    validator,
    blockHash,
    appHash,
    timeOf,
    block(height) {
      let b = cache.get(height);
      if (!b) {
        cache.set(height, (b = generateBlock(parts, height)));
        config.onGenerate?.(b);
      }
      return b;
    },
  };
}

/**
 * The /block_results object as one buffer from the txs' result texts (one UTF-8 encoding per
 * block); each tx's resultBytes becomes a view into it, so the cache holds one copy.
 */
function renderResults(height: number, txs: GeneratedTx[], resultJsons: string[], tail: string): Buffer {
  const head = `{"height":"${height}","txs_results":${txs.length === 0 ? 'null' : '['}`;
  const text = head + resultJsons.join(',') + (txs.length === 0 ? '' : ']') + tail;
  const bytes = Buffer.from(text);
  let offset = Buffer.byteLength(head);
  for (let i = 0; i < txs.length; i++) {
    const length = Buffer.byteLength(resultJsons[i]!);
    txs[i]!.resultBytes = bytes.subarray(offset, offset + length);
    offset += length + 1;
  }
  return bytes;
}

/** sdk.Coins addition: merged by denom, zero amounts dropped, sorted by denom. */
export function sumFees(fees: Coin[][]): Coin[] {
  const totals = new Map<string, bigint>();
  for (const coins of fees)
    for (const c of coins) totals.set(c.denom, (totals.get(c.denom) ?? 0n) + BigInt(c.amount));
  return [...totals.entries()]
    .filter(([, v]) => v > 0n)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([denom, v]) => ({ denom, amount: v.toString() }));
}

function renderBlock(
  chainId: string,
  hash: string,
  h: BlockHeader,
  txs: GeneratedTx[],
  proposer: string,
): string {
  const lastBlockId =
    h.height > 1
      ? `{"hash":"${h.lastBlockHash}","parts":{"total":1,"hash":"${h.lastPartsHash}"}}`
      : '{"hash":"","parts":{"total":0,"hash":""}}';
  const header =
    `{"version":{"block":"11","app":"0"},"chain_id":"${chainId}","height":"${h.height}","time":"${h.time}",` +
    `"last_block_id":${lastBlockId},"last_commit_hash":"${h.lastCommitHash}","data_hash":"${h.dataHash}",` +
    `"validators_hash":"${h.validatorsHash}","next_validators_hash":"${h.validatorsHash}",` +
    `"consensus_hash":"${h.consensusHash}","app_hash":"${h.appHash}","last_results_hash":"${h.lastResultsHash}",` +
    `"evidence_hash":"${h.evidenceHash}","proposer_address":"${proposer}"}`;
  const signatures =
    h.height > 1
      ? `[{"block_id_flag":2,"validator_address":"${proposer}","timestamp":"${h.commitTime}",` +
        `"signature":"${h.commitSignatureB64}"}]`
      : '[]';
  const lastCommit = `{"height":"${h.height - 1}","round":0,"block_id":${lastBlockId},"signatures":${signatures}}`;
  return (
    `{"block_id":{"hash":"${hash}","parts":{"total":1,"hash":"${h.partsHash}"}},"block":{"header":${header},` +
    `"data":{"txs":[${txs.map((t) => `"${t.base64}"`).join(',')}]},"evidence":{"evidence":[]},` +
    `"last_commit":${lastCommit}}}`
  );
}
