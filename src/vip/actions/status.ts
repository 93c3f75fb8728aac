import { AppError } from '../../shared/errors.js';
import type { StageInfo } from '../types.js';
import type { ActionContext } from './context.js';

const MAX_STAGES = 10_000;

/** Init stage, every stage from there (finalized ones and the open one), totals and writers. */
export async function readStatus(ctx: Pick<ActionContext, 'backend'>): Promise<Record<string, unknown>> {
  const { backend } = ctx;
  const initStage = await backend.initStage();
  const sender = await backend.senderAddress().catch((err: unknown) => {
    // Read without a key: there is no sender to report.
    if (err instanceof AppError && err.code === 'missing_key') return undefined;
    throw err;
  });
  const writers = await backend.writers();
  const senderMayWrite = sender === undefined ? undefined : await backend.isWriter(sender);
  const stages: StageInfo[] = [];
  if (initStage !== undefined) {
    for (let s = initStage; s < initStage + BigInt(MAX_STAGES); s++) {
      const info = await backend.stageInfo(s);
      if (!info) break;
      stages.push(info);
    }
  }
  const open = stages.find((s) => !s.isFinalized);
  return {
    vm: backend.vm,
    initStage: initStage === undefined ? null : String(initStage),
    openStage: open ? String(open.stage) : null,
    finalizedStages: stages.filter((s) => s.isFinalized).map((s) => String(s.stage)),
    stages: stages.map((s) => ({
      stage: String(s.stage),
      totalScore: String(s.totalScore),
      isFinalized: s.isFinalized,
    })),
    writers: writers ?? null,
    sender: sender ?? null,
    senderMayWrite: senderMayWrite ?? null,
  };
}
