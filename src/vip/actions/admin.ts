import { InputError } from '../../shared/errors.js';
import { sendOp } from '../send.js';
import type { VipOp } from '../types.js';
import type { ActionContext } from './context.js';

/** allow / disallow / add-deployer / set-init-stage: one tx, after the state checks that apply. */
export async function runAdmin(ctx: ActionContext, op: VipOp): Promise<Record<string, unknown>> {
  const { backend } = ctx;
  if (op.kind === 'setInitStage') {
    if (op.stage === 0n) throw new InputError('invalid_stage', 'the init stage must be ≥ 1');
    const current = await backend.initStage();
    if (current !== undefined) throw new InputError('already_set', `init stage is already ${current}`);
  }
  if (op.kind === 'disallow' && op.addr === (await backend.senderAddress())) {
    ctx.logger.warn('removing the sender from the allow list: make sure another member remains');
  }
  if (ctx.dryRun) {
    const planned = await backend.plan(op);
    return { dryRun: true, gasLimit: String(planned.gasLimit), fee: planned.fee, messages: planned.messages };
  }
  const r = await sendOp(backend, op, { ...ctx.send, logger: ctx.logger });
  return { op: op.kind, txHash: r.hash, height: r.height };
}
