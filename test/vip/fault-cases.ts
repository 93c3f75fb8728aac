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

/** Resolves when `event` happens; fails at once if `command` settles before it. */
async function beforeItEnds(event: Promise<void>, command: Promise<unknown>, what: string): Promise<void> {
  let ended = false;
  const end = command.then(
    () => (ended = true),
    () => (ended = true),
  );
  await Promise.race([event, end]);
  if (ended) {
    await command;
    throw new Error(`the command ended before ${what}`);
  }
}

/**
 * The tx (`addr` scores 5) lands only after the tool gave up waiting twice and re-sent the same
 * bytes: it is found by hash and executed once. The chain holds the tx until the test releases
 * it, once the log says the second wait ended, so no timing decides the order.
 */
export async function expectLateTxConfirmedOnce(h: Harness, contract: string, addr: string) {
  h.chain.faults.holdNextInclusion = true;
  const file = await h.file('t.csv', `${addr},5\n`);
  const before = h.chain.stats.includedTxs;
  const progress = `${h.dir}/t.json`;
  const cli = updateScoresArgv(h.baseArgs(), contract, '1', file, '--progress', progress);
  const gaveUpTwice = h.logsMatching(/not confirmed in time/, 2);
  const command = h.vip([...cli, '--confirm-timeout-ms', '100']);
  await beforeItEnds(gaveUpTwice, command, 'its second confirmation timeout');
  // The re-sent bytes were the same tx: still one held, nothing included.
  expect(h.chain.heldCount()).toBe(1);
  expect(h.chain.stats.includedTxs).toBe(before);
  expect(h.chain.releaseHeld()).toBe(1);
  expect(await command).toMatchObject({ txs: 1 });
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
  h.chain.faults.holdNextInclusion = true;
  await expect(h.vip([...cli, '--confirm-timeout-ms', '30'])).rejects.toMatchObject({
    code: 'tx_unconfirmed',
  });
  expect((JSON.parse(await readFile(progress, 'utf8')) as Progress).pending?.index).toBe(0);
  expect(h.chain.stats.includedTxs).toBe(includedBeforeCrash);
  // The node includes it while the tool is not running.
  expect(h.chain.releaseHeld()).toBe(1);
  const before = h.chain.stats.includedTxs;
  const out = await h.vip(cli);
  expect(h.chain.stats.includedTxs - before).toBe(c.batches - 1);
  expect(out).toMatchObject({ txs: c.batches, onChainTotal: String(total) });
}
