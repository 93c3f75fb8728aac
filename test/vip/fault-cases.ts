import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { Progress } from '../../src/vip/progress.js';
import { updateScoresArgv } from './cli-args.js';
import { scoresCsv, type Harness } from './harness.js';

// Fault cases the Move (faults.test.ts) and Wasm (wasm-faults.test.ts) suites both run.

/** A scores file with bad address rows is refused with `problems` problems before anything is signed. */
export async function expectBadRowsRefused(h: Harness, contract: string, csv: string, problems: number) {
  const file = await h.file('bad.csv', csv);
  const before = h.chain.stats.includedTxs;
  const err = (await h.vip(updateScoresArgv(h.baseArgs(), contract, '1', file)).catch((e: unknown) => e)) as {
    code: string;
    details: { problems: string[] };
  };
  expect(err.code).toBe('invalid_scores');
  expect(err.details.problems).toHaveLength(problems);
  expect(h.chain.stats.includedTxs).toBe(before);
}

/** The node answers the broadcast of `addr`'s score with code 13 and `log`: the command fails with it. */
export async function expectBroadcastRejected(h: Harness, contract: string, addr: string, log: string) {
  h.chain.faults.rejectNextBroadcast = { code: 13, log };
  const file = await h.file('f.csv', `${addr},4\n`);
  const cli = updateScoresArgv(h.baseArgs(), contract, '1', file, '--progress', `${h.dir}/f.json`);
  await expect(h.vip(cli)).rejects.toMatchObject({ chainCode: 13 });
}

/** The tx (`addr` scores 5) lands after the confirmation timeout: it is found, executed once. */
export async function expectLateTxConfirmedOnce(h: Harness, contract: string, addr: string) {
  h.chain.faults.delayNextInclusionMs = 300;
  const file = await h.file('t.csv', `${addr},5\n`);
  const before = h.chain.stats.includedTxs;
  const progress = `${h.dir}/t.json`;
  const cli = updateScoresArgv(h.baseArgs(), contract, '1', file, '--progress', progress);
  const out = await h.vip([...cli, '--confirm-timeout-ms', '100']);
  expect(out).toMatchObject({ txs: 1 });
  expect(h.chain.stats.includedTxs - before).toBe(1);
}

/**
 * One interrupted `vip update-scores` run, the same on every VM: `rows` addresses (numbered
 * from `offset`) go into `stage` in batches of `maxBatch` (`batches` of them), after the stage
 * before is finalized so that `stage` is the open one.
 */
export interface ResumeCase {
  stage: number;
  rows: number;
  offset: number;
  maxBatch: number;
  batches: number;
}

async function prepare(h: Harness, contract: string, name: string, c: ResumeCase) {
  await h.vip(['finalize', ...h.baseArgs(), '--contract', contract, '--stage', String(c.stage - 1)]);
  const { csv, total } = scoresCsv(c.rows, c.offset);
  const file = await h.file(`${name}.csv`, csv);
  const progress = `${h.dir}/${name}.json`;
  const cli = updateScoresArgv(h.baseArgs(), contract, String(c.stage), file, '--progress', progress);
  return { total, progress, cli: [...cli, '--max-batch', String(c.maxBatch)] };
}

/** The chain rejects the third batch; the rerun sends only the batches not yet done. */
export async function expectResumeAfterFailedBatch(h: Harness, contract: string, c: ResumeCase) {
  const { total, progress, cli } = await prepare(h, contract, 'big', c);
  h.chain.faults.rejectAfter = { after: 2, code: 5, log: 'connection reset' };
  await expect(h.vip(cli)).rejects.toMatchObject({ chainCode: 5 });
  const p = JSON.parse(await readFile(progress, 'utf8')) as Progress;
  expect(p.batches).toHaveLength(c.batches);
  expect(p.done.map((d) => d.index)).toEqual([0, 1]);
  const before = h.chain.stats.includedTxs;
  const out = await h.vip(cli);
  expect(h.chain.stats.includedTxs - before).toBe(c.batches - 2);
  expect(out).toMatchObject({ txs: c.batches, onChainTotal: String(total), totalsChecked: true });
}

/**
 * The first batch is accepted but included only after the tool gave up waiting (a crash
 * leaves it pending); the rerun finds it on chain and does not send it again.
 */
export async function expectPendingBatchFoundAtResume(h: Harness, contract: string, c: ResumeCase) {
  const { total, progress, cli } = await prepare(h, contract, 'crash', c);
  const includedBeforeCrash = h.chain.stats.includedTxs;
  h.chain.faults.delayNextInclusionMs = 400;
  await expect(h.vip([...cli, '--confirm-timeout-ms', '30'])).rejects.toMatchObject({
    code: 'tx_unconfirmed',
  });
  expect((JSON.parse(await readFile(progress, 'utf8')) as Progress).pending?.index).toBe(0);
  // Wait for the late inclusion itself (a condition, not a delay).
  while (h.chain.stats.includedTxs === includedBeforeCrash) await new Promise((r) => setTimeout(r, 20));
  const before = h.chain.stats.includedTxs;
  const out = await h.vip(cli);
  expect(h.chain.stats.includedTxs - before).toBe(c.batches - 1);
  expect(out).toMatchObject({ txs: c.batches, onChainTotal: String(total) });
}
