import { InputError } from '../../shared/errors.js';
import { sendOp } from '../send.js';
import type { ActionContext } from './context.js';

export interface FinalizeInput {
  stage: bigint;
  /** Catch up: finalize stage, stage+1, …, through (inclusive), one tx each, in order. */
  through?: bigint;
  /** Current L1 stage when known: a stage is only finalized once L1 has moved past it. */
  l1Stage?: bigint;
}

/**
 * Finalizes only open stages. State is read before every tx and a finalized stage is never sent
 * again: repeating is a no-op on EVM, an abort on Move, and on Wasm it resets the next stage.
 */
export async function finalizeStages(
  ctx: ActionContext,
  input: FinalizeInput,
): Promise<Record<string, unknown>> {
  const last = input.through ?? input.stage;
  if (last < input.stage) throw new InputError('invalid_stage', '--through must not be below --stage');
  if (input.l1Stage !== undefined && last >= input.l1Stage) {
    throw new InputError('stage_not_over', `stage ${last} is not over on L1 (L1 stage is ${input.l1Stage})`);
  }
  const results: Record<string, unknown>[] = [];
  for (let stage = input.stage; stage <= last; stage++) {
    const info = await ctx.backend.stageInfo(stage);
    if (!info)
      throw new InputError(
        'stage_not_found',
        `stage ${stage} does not exist (stages open only by finalizing the previous one)`,
      );
    if (info.isFinalized) {
      ctx.logger.info({ stage: String(stage) }, 'already finalized; not sending');
      results.push({ stage: String(stage), skipped: 'already finalized' });
      continue;
    }
    if (ctx.dryRun) {
      const planned = await ctx.backend.plan({ kind: 'finalize', stage });
      ctx.out({
        dryRun: true,
        stage: String(stage),
        gasLimit: String(planned.gasLimit),
        fee: planned.fee,
        messages: planned.messages,
      });
      results.push({ stage: String(stage), dryRun: true });
      // Later stages do not exist until this one is really finalized.
      break;
    }
    const r = await sendOp(ctx.backend, { kind: 'finalize', stage }, { ...ctx.send, logger: ctx.logger });
    ctx.logger.info({ stage: String(stage), hash: r.hash }, 'stage finalized');
    results.push({ stage: String(stage), txHash: r.hash, height: r.height });
  }
  return { finalized: results };
}
