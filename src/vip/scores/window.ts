import { AppError, InputError } from '../../shared/errors.js';
import type { Queryable } from '../../store/driver/db.js';
import {
  blockTimeText,
  blockTimeUs,
  firstHeightAtOrAfter,
  indexedRange,
  streamHeight,
} from '../../store/readers/vip-window.js';
import { readL1Stage } from '../l1.js';

/**
 * A score window: the inclusive height range [fromHeight, toHeight]. Times resolve through block
 * times in the index: `from` → the first block with time >= from, `to` → the last block with
 * time < to (so [from, to) in time, the way L1 stages are [start, end)).
 */
export interface ScoreWindow {
  source: 'heights' | 'times' | 'l1';
  fromHeight: number;
  toHeight: number;
  /** Block times of fromHeight and toHeight (RFC 3339 UTC, microseconds). */
  fromBlockTime: string;
  toBlockTime: string;
  /** What was asked for: heights as digits, times as RFC 3339. */
  requestedFrom: string;
  requestedTo: string;
}

export type WindowSpec = { from: string; to: string } | { l1: { rest: string; vipPackage: string } };

type Bound = { height: number } | { timeUs: bigint; text: string };

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses a height (digits) or an RFC 3339 time (kept to the microsecond, like the index). */
export function parseBound(text: string, flag: string): Bound {
  const t = text.trim();
  if (/^\d+$/.test(t)) {
    const height = Number(t);
    if (!Number.isSafeInteger(height) || height < 1)
      throw new InputError('invalid_window', `${flag}: bad height "${t}"`);
    return { height };
  }
  const m = RFC3339.exec(t);
  const ms = m ? Date.parse(`${m[1]}T${m[2]}${m[4]!.toUpperCase()}`) : NaN;
  if (!m || Number.isNaN(ms)) {
    throw new InputError('invalid_window', `${flag}: "${t}" is neither a height nor an RFC 3339 time`);
  }
  const fracUs = BigInt((m[3] ?? '').padEnd(9, '0').slice(0, 6) || '0');
  return { timeUs: BigInt(ms) * 1000n + fracUs, text: t };
}

function notIndexed(message: string): AppError {
  return new AppError('window_not_indexed', message);
}

/**
 * Resolves the window against the index and refuses one the index has not fully covered: the
 * block stream (and each of `streams`) must be past its end, and its start must not lie before
 * the lowest stored block.
 */
export async function resolveWindow(
  db: Queryable,
  spec: WindowSpec,
  options: { stage: bigint; streams?: readonly string[] },
): Promise<ScoreWindow> {
  let from: Bound;
  let to: Bound;
  let source: ScoreWindow['source'];
  if ('l1' in spec) {
    const { start, end } = await l1StageWindow(spec.l1, options.stage);
    from = { timeUs: start * 1_000_000n, text: new Date(Number(start) * 1000).toISOString() };
    to = { timeUs: end * 1_000_000n, text: new Date(Number(end) * 1000).toISOString() };
    source = 'l1';
  } else {
    from = parseBound(spec.from, '--from');
    to = parseBound(spec.to, '--to');
    source = 'height' in from && 'height' in to ? 'heights' : 'times';
  }
  const range = await indexedRange(db);
  if (range.lowest === undefined || range.checkpoint === 0) throw notIndexed('the index holds no blocks yet');
  const lowest = range.lowest;
  const fromHeight = await resolveFrom(db, from, lowest, range.checkpoint);
  const toHeight = await resolveTo(db, to, lowest, range.checkpoint);
  for (const stream of options.streams ?? []) {
    const h = await streamHeight(db, stream);
    if (h === undefined || h < toHeight) {
      throw notIndexed(`stage "${stream}" is at height ${h ?? 'none'}, before the window's end ${toHeight}`);
    }
  }
  if (fromHeight > toHeight) {
    throw new InputError(
      source === 'heights' ? 'invalid_window' : 'window_empty',
      `the window holds no block (from height ${fromHeight} is after to height ${toHeight})`,
    );
  }
  return {
    source,
    fromHeight,
    toHeight,
    fromBlockTime: (await blockTimeText(db, fromHeight)) ?? '',
    toBlockTime: (await blockTimeText(db, toHeight)) ?? '',
    requestedFrom: 'height' in from ? String(from.height) : from.text,
    requestedTo: 'height' in to ? String(to.height) : to.text,
  };
}

async function resolveFrom(db: Queryable, from: Bound, lowest: number, checkpoint: number): Promise<number> {
  if ('height' in from) {
    if (from.height < lowest)
      throw notIndexed(`the index starts at height ${lowest}, after --from ${from.height}`);
    if (from.height > checkpoint) throw notIndexed(`the index is at height ${checkpoint}, before the window`);
    return from.height;
  }
  // Blocks before the lowest stored one may fall in the window unless the index starts at genesis.
  const lowestUs = await blockTimeUs(db, lowest);
  if (lowest > 1 && lowestUs !== undefined && lowestUs >= from.timeUs) {
    throw notIndexed(
      `the index starts at height ${lowest}, which may be after the window's start ${from.text}`,
    );
  }
  const h = await firstHeightAtOrAfter(db, lowest, checkpoint, from.timeUs);
  if (h === undefined) throw notIndexed(`the index (height ${checkpoint}) has not reached ${from.text}`);
  return h;
}

async function resolveTo(db: Queryable, to: Bound, lowest: number, checkpoint: number): Promise<number> {
  if ('height' in to) {
    if (to.height > checkpoint) {
      throw notIndexed(`the index is at height ${checkpoint}, before the window's end ${to.height}`);
    }
    return to.height;
  }
  // A block at or after the end must be stored: only then can no later block fall in the window.
  const first = await firstHeightAtOrAfter(db, lowest, checkpoint, to.timeUs);
  if (first === undefined) {
    throw notIndexed(`the index (height ${checkpoint}) has no block at or after the window's end ${to.text}`);
  }
  return first - 1;
}

/**
 * Stage N's [start, end) in Unix seconds from the L1 ModuleStore: the current stage's times when
 * the L1 is at N; when it is already at N+1 (the usual case once N ended), N ends where N+1 starts
 * and is assumed to have N+1's length (the interval is governance-tunable: pass --from/--to if it
 * changed).
 */
async function l1StageWindow(l1: { rest: string; vipPackage: string }, stage: bigint) {
  const s = await readL1Stage(l1.rest, l1.vipPackage);
  if (s.stageStartTime === undefined || s.stageEndTime === undefined) {
    throw new AppError('l1_stage_unavailable', 'the L1 ModuleStore gives no stage_start_time/stage_end_time');
  }
  if (s.stage === stage) return { start: s.stageStartTime, end: s.stageEndTime };
  if (s.stage === stage + 1n) {
    const length = s.stageEndTime - s.stageStartTime;
    return { start: s.stageStartTime - length, end: s.stageStartTime };
  }
  throw new InputError(
    'stage_window_unknown',
    `the L1 is at stage ${s.stage}; its window for stage ${stage} is unknown: give --from and --to`,
  );
}
