import path from 'node:path';
import { FAKE_MOVE_MODULE, FAKE_WASM, type Harness } from './harness.js';

/** argv of `vip deploy` of a code file (Move module or Wasm code) with an initial stage and a record path. */
export function deployArgv(
  base: string[],
  vm: 'move' | 'wasm',
  code: string,
  initStage: string,
  record: string,
  ...extra: string[]
): string[] {
  return [
    'deploy',
    ...base,
    vm === 'move' ? '--module' : '--wasm',
    code,
    '--init-stage',
    initStage,
    '--record',
    record,
    ...extra,
  ];
}

/** argv of `vip update-scores` of a scores file into one stage of a contract. */
export function updateScoresArgv(
  base: string[],
  contract: string,
  stage: string,
  scores: string,
  ...extra: string[]
): string[] {
  return ['update-scores', ...base, '--contract', contract, '--stage', stage, '--scores', scores, ...extra];
}

export interface DeployOptions {
  /** File name of the fake code in the harness dir; defaults by vm. */
  code?: string;
  initStage?: string;
  /** File name of the deploy record in the harness dir. */
  record?: string;
}

/**
 * `vip deploy` of the fake vip_score (module or code, by the harness vm) as the deployer.
 * Answers the command output, the record path and the contract address the record names.
 */
export async function deployVipScore(
  h: Harness,
  { code, initStage = '1', record = 'record.json' }: DeployOptions = {},
  ...extra: string[]
): Promise<{ out: Record<string, unknown>; recordPath: string; contract: string }> {
  const codePath =
    h.vm === 'move'
      ? await h.file(code ?? 'vip_score.mv', FAKE_MOVE_MODULE)
      : await h.file(code ?? 'vip_score.wasm', FAKE_WASM);
  const recordPath = path.join(h.dir, record);
  const out = await h.vip(deployArgv(h.baseArgs(), h.vm, codePath, initStage, recordPath, ...extra));
  return { out, recordPath, contract: (out.record as { contractAddress: string }).contractAddress };
}
