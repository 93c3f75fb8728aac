import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AppError, InputError } from '../../shared/errors.js';
import { ChainError } from '../chain-error.js';
import { readProgress, writeProgress, type Progress } from '../progress.js';
import { loadScores, U64_MAX, type DuplicatePolicy } from '../scores-file.js';
import { confirmSigned, sendOp } from '../send.js';
import { OUT_OF_GAS_CODE, type ScoreEntry, type VipBackend } from '../types.js';
import { BYTES_PER_ENTRY, type ActionContext } from './context.js';

export interface UpdateScoresInput {
  stage: bigint;
  scoresPath: string;
  duplicates: DuplicatePolicy;
  /** Where the resume record lives; default .vip-progress/<vm>-<contract>-<stage>-<hash>.json. */
  progressPath?: string;
}

const PROBE_ENTRIES = 100;

export async function updateScores(
  ctx: ActionContext,
  input: UpdateScoresInput,
): Promise<Record<string, unknown>> {
  const { backend, logger } = ctx;
  const scores = await loadScores(input.scoresPath, (a) => backend.normaliseAddress(a), input.duplicates);
  if (scores.duplicates.length > 0) {
    logger.warn({ policy: input.duplicates, count: scores.duplicates.length }, 'duplicate addresses merged');
  }
  const info = await backend.stageInfo(input.stage);
  if (!info) throw new InputError('stage_not_found', `stage ${input.stage} does not exist on the contract`);
  if (info.isFinalized)
    throw new InputError('stage_finalized', `stage ${input.stage} is finalized; scores are frozen`);
  const sender = await backend.senderAddress();
  if ((await backend.isWriter(sender)) === false) {
    throw new InputError('not_permitted', `${sender} may not write scores on this contract`);
  }

  const progressPath = input.progressPath ?? defaultProgressPath(ctx, input.stage, scores.fileHash);
  let progress = await readProgress(progressPath);
  if (progress && (progress.fileHash !== scores.fileHash || progress.stage !== String(input.stage))) {
    throw new AppError('bad_progress', `${progressPath} belongs to another file or stage`);
  }
  // On a resume the chain already holds part of the file: the bound uses the total from before.
  const totalBefore = progress ? BigInt(progress.totalBefore) : info.totalScore;
  checkStageTotal(backend.vm, input.stage, totalBefore, scores.total);
  if (!progress) {
    const size = await chooseBatchSize(ctx, input.stage, scores.entries);
    progress = {
      version: 1,
      vm: backend.vm,
      contract: ctx.contractId,
      stage: String(input.stage),
      fileHash: scores.fileHash,
      totalBefore: String(info.totalScore),
      batches: splitInto(scores.entries.length, size),
      done: [],
    };
    logger.info(
      { entries: scores.entries.length, batchSize: size, batches: progress.batches.length },
      'batches planned',
    );
  } else {
    logger.info({ done: progress.done.length, batches: progress.batches.length, progressPath }, 'resuming');
  }

  if (ctx.dryRun) return dryRun(ctx, input.stage, scores.entries, progress);

  await mkdir(path.dirname(progressPath), { recursive: true });
  await writeProgress(progressPath, progress);
  await resolvePending(ctx, progress, progressPath);
  await checkDoneOnChain(backend, input.stage, scores.entries, progress);
  await sendBatches(ctx, input.stage, scores.entries, progress, progressPath);
  return verifyTotals(ctx, input.stage, scores.entries, scores.total, progress);
}

/** What each contract does when a stage total passes u64::MAX (docs/vip-contracts.md §1.1–§1.4). */
const ON_OVERFLOW = {
  evm: 'updateScores would wrap the total silently (unchecked int128 cast)',
  move: 'the Move VM would abort the batch with ARITHMETIC_ERROR',
  wasm: 'the contract would wrap the total silently (`as u64` cast)',
} as const;

/**
 * The stage total after the run is at least the file's total (its addresses end with exactly
 * these amounts) and at most the total before plus the file's total (when no address held a
 * score). Past u64::MAX the run is refused before anything is signed; the upper bound may
 * refuse a file that only rewrites existing scores, which no real score list comes near.
 */
function checkStageTotal(vm: VipBackend['vm'], stage: bigint, before: bigint, fileTotal: bigint): void {
  const bound = before + fileTotal;
  if (bound <= U64_MAX) return;
  const why =
    fileTotal > U64_MAX
      ? `the file's amounts add up to ${fileTotal}`
      : `the stage already totals ${before} and the file adds up to ${fileTotal} (together ${bound})`;
  throw new InputError(
    'score_total_overflow',
    `stage ${stage} total would exceed the u64 maximum ${U64_MAX}: ${why}; ${ON_OVERFLOW[vm]}`,
    { stage: String(stage), totalBefore: String(before), fileTotal: String(fileTotal), max: String(U64_MAX) },
  );
}

function defaultProgressPath(ctx: ActionContext, stage: bigint, fileHash: string): string {
  const contract = ctx.contractId.replace(/[^0-9a-zA-Z]/g, '').slice(-16);
  return path.resolve(
    '.vip-progress',
    `${ctx.backend.vm}-${contract}-${stage}-${fileHash.slice(0, 16)}.json`,
  );
}

export function splitInto(count: number, size: number): [number, number][] {
  const out: [number, number][] = [];
  for (let from = 0; from < count; from += size) out.push([from, Math.min(count, from + size)]);
  return out;
}

/** Batch size from two simulations (1 entry and a probe), within the gas and byte budgets. */
async function chooseBatchSize(ctx: ActionContext, stage: bigint, entries: ScoreEntry[]): Promise<number> {
  const { backend, limits } = ctx;
  const probeN = Math.min(entries.length, PROBE_ENTRIES);
  const one = await backend.plan({ kind: 'updateScores', stage, entries: entries.slice(0, 1) });
  let perEntry = one.gasEstimate;
  let base = 0n;
  if (probeN > 1) {
    const probe = await backend.plan({ kind: 'updateScores', stage, entries: entries.slice(0, probeN) });
    perEntry = (probe.gasEstimate - one.gasEstimate) / BigInt(probeN - 1);
    if (perEntry < 1n) perEntry = 1n;
    base = one.gasEstimate - perEntry;
  }
  const budget = (Number(limits.maxTxGas) / limits.gasAdjustment) * 0.9 - Number(base);
  const byGas = Math.floor(budget / Number(perEntry));
  const byBytes = Math.floor((limits.maxTxBytes * 0.8) / BYTES_PER_ENTRY[backend.vm]);
  const size = Math.max(1, Math.min(byGas, byBytes, limits.maxBatch ?? Infinity, entries.length));
  ctx.logger.info(
    { perEntryGas: String(perEntry), baseGas: String(base), size },
    'batch size from simulation',
  );
  return size;
}

async function dryRun(ctx: ActionContext, stage: bigint, entries: ScoreEntry[], progress: Progress) {
  const doneSet = new Set(progress.done.map((d) => d.index));
  let txs = 0;
  for (const [index, [from, to]] of progress.batches.entries()) {
    if (doneSet.has(index)) continue;
    const planned = await ctx.backend.plan({ kind: 'updateScores', stage, entries: entries.slice(from, to) });
    ctx.out({
      dryRun: true,
      batch: index,
      entries: to - from,
      gasLimit: String(planned.gasLimit),
      fee: planned.fee,
      messages: planned.messages,
    });
    txs += 1;
  }
  return { dryRun: true, stage: String(stage), entries: entries.length, txs };
}

/** A tx was signed before the interruption: find out whether it landed before anything else. */
async function resolvePending(ctx: ActionContext, progress: Progress, progressPath: string): Promise<void> {
  const pending = progress.pending;
  if (!pending) return;
  const { backend, logger } = ctx;
  const landed = await backend.lookup(pending.txHash);
  if (landed?.success) {
    logger.info({ hash: pending.txHash, batch: pending.index }, 'pending batch had landed');
    progress.done.push({ index: pending.index, txHash: pending.txHash });
  } else if (landed) {
    logger.warn(
      { hash: pending.txHash, code: landed.code },
      'pending batch had failed on chain; it will be re-sent',
    );
  } else {
    try {
      const signed = {
        hash: pending.txHash,
        raw: Buffer.from(pending.raw, 'base64'),
        planned: undefined as never,
      };
      await confirmSigned(backend, signed, { ...ctx.send, logger });
      progress.done.push({ index: pending.index, txHash: pending.txHash });
    } catch (err) {
      // A sequence mismatch means those bytes can never land any more; the batch is re-planned.
      if (!(err instanceof ChainError)) throw err;
      logger.warn(
        { hash: pending.txHash, err: err.message },
        'pending batch was not included; it will be re-sent',
      );
    }
  }
  delete progress.pending;
  await writeProgress(progressPath, progress);
}

/** The progress file must agree with the chain: the last written entry must hold its value. */
async function checkDoneOnChain(
  backend: VipBackend,
  stage: bigint,
  entries: ScoreEntry[],
  progress: Progress,
) {
  const last = progress.done.reduce((m, d) => Math.max(m, d.index), -1);
  const batch = progress.batches[last];
  if (!batch) return;
  const entry = entries[batch[1] - 1];
  if (!entry) return;
  const onChain = await backend.score(stage, entry.addr);
  if (onChain !== entry.amount) {
    throw new AppError(
      'progress_mismatch',
      `progress says batch ${last} is written, but ${entry.addr} holds ${onChain} on chain, not ${entry.amount}`,
    );
  }
}

const MAX_GAS_MULTIPLIER = 4;

/**
 * Sends the remaining batches one by one, each confirmed before the next. Too-big batches are
 * split; an out-of-gas failure (sequence consumed, fee burnt) raises the gas factor ×1.2 (cap ×4)
 * for the rest of the run, since later batches have the same shape.
 */
async function sendBatches(
  ctx: ActionContext,
  stage: bigint,
  entries: ScoreEntry[],
  progress: Progress,
  progressPath: string,
) {
  const { backend, logger } = ctx;
  let gasMultiplier = 1;
  for (let index = 0; index < progress.batches.length; index++) {
    if (progress.done.some((d) => d.index === index)) continue;
    const [from, to] = progress.batches[index] as [number, number];
    const op = { kind: 'updateScores' as const, stage, entries: entries.slice(from, to) };
    let result;
    try {
      result = await sendOp(backend, op, {
        ...ctx.send,
        logger,
        gasMultiplier,
        onSigned: async (tx) => {
          progress.pending = { index, txHash: tx.hash, raw: Buffer.from(tx.raw).toString('base64') };
          await writeProgress(progressPath, progress);
        },
      });
    } catch (err) {
      const retry = await recoverBatch(err, { index, from, to, gasMultiplier, progress, progressPath, ctx });
      if (retry === undefined) throw err;
      gasMultiplier = retry;
      index -= 1;
      continue;
    }
    progress.done.push({ index, txHash: result.hash });
    delete progress.pending;
    await writeProgress(progressPath, progress);
    logger.info(
      { batch: index, of: progress.batches.length, hash: result.hash, gasUsed: String(result.gasUsed) },
      'batch confirmed',
    );
  }
}

/** Answers the gas factor to retry the batch with, or undefined when the error must stop the run. */
async function recoverBatch(
  err: unknown,
  s: {
    index: number;
    from: number;
    to: number;
    gasMultiplier: number;
    progress: Progress;
    progressPath: string;
    ctx: ActionContext;
  },
): Promise<number | undefined> {
  if (!(err instanceof ChainError)) return undefined;
  if (err.reason === 'gas_limit' && s.to - s.from > 1 && !s.progress.pending) {
    // Simulation says the batch is too big: split it and retry the first half.
    const mid = s.from + Math.ceil((s.to - s.from) / 2);
    s.progress.batches.splice(s.index, 1, [s.from, mid], [mid, s.to]);
    s.progress.done = s.progress.done.map((d) => (d.index > s.index ? { ...d, index: d.index + 1 } : d));
    await writeProgress(s.progressPath, s.progress);
    return s.gasMultiplier;
  }
  if (err.chainCode === OUT_OF_GAS_CODE && s.gasMultiplier < MAX_GAS_MULTIPLIER) {
    // The failed tx is final on chain (it consumed its sequence): nothing is pending any more.
    delete s.progress.pending;
    await writeProgress(s.progressPath, s.progress);
    const next = Math.min(MAX_GAS_MULTIPLIER, s.gasMultiplier * 1.2);
    s.ctx.logger.warn(
      { batch: s.index, hash: err.txHash, gasMultiplier: next },
      'out of gas; retrying with more gas',
    );
    return next;
  }
  return undefined;
}

const SAMPLE = 20;

async function verifyTotals(
  ctx: ActionContext,
  stage: bigint,
  entries: ScoreEntry[],
  fileTotal: bigint,
  progress: Progress,
) {
  const info = await ctx.backend.stageInfo(stage);
  const onChain = info?.totalScore ?? 0n;
  const step = Math.max(1, Math.floor(entries.length / SAMPLE));
  const mismatches: string[] = [];
  for (let i = 0; i < entries.length; i += step) {
    const e = entries[i] as ScoreEntry;
    const v = await ctx.backend.score(stage, e.addr);
    if (v !== e.amount) mismatches.push(`${e.addr}: ${v} ≠ ${e.amount}`);
  }
  const exact = progress.totalBefore === '0';
  const summary = {
    stage: String(stage),
    entries: entries.length,
    txs: progress.done.length,
    fileTotal: String(fileTotal),
    onChainTotal: String(onChain),
    totalsChecked: exact,
    sampled: Math.ceil(entries.length / step),
  };
  if (mismatches.length > 0 || (exact && onChain !== fileTotal)) {
    throw new AppError(
      'total_mismatch',
      `on-chain state differs from the file: total ${onChain} vs ${fileTotal}; ${mismatches.slice(0, 3).join('; ')}`,
      { details: summary },
    );
  }
  if (!exact) ctx.logger.warn(summary, 'stage held scores before this run; totals compared by sample only');
  return summary;
}
