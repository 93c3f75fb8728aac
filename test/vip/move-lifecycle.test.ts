import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bech32Of, KEYS, scoresCsv, startHarness, type Harness } from './harness.js';
import { deployVipScore, updateScoresArgv } from './cli-args.js';

let h: Harness;
const publisherHex = () => h.chain.moveModules.keys().next().value as string;

beforeAll(async () => {
  h = await startHarness('move');
});
afterAll(async () => h?.close());

describe('vip CLI on a Move rollup (chain model)', () => {
  it('deploys: publish, add_deployer_script(self), set_init_stage; writes the record', async () => {
    const { out, recordPath } = await deployVipScore(h, { initStage: '5' });
    const saved = JSON.parse(await readFile(recordPath, 'utf8')) as Record<string, unknown>;
    expect(out.record).toEqual(saved);
    expect(saved).toMatchObject({
      vm: 'move',
      chainId: 'minimove-test',
      initStage: '5',
      rollupVersion: 'v1.0.2',
    });
    expect((saved.txHashes as string[]).length).toBe(3);
    expect(saved.contractAddress).toBe(h.chain.moveModules.get(publisherHex())?.publisher);
    const m = h.chain.moveModules.get(publisherHex());
    expect(m?.initStage).toBe(5n);
    expect([...(m?.deployers.keys() ?? [])]).toEqual([publisherHex()]);
  });

  it('status reads init stage, open stage and deployers from the resource and table', async () => {
    const out = await h.vip(['status', ...h.baseArgs(), '--contract', bech32Of(KEYS.deployer)]);
    expect(out).toMatchObject({
      vm: 'move',
      initStage: '5',
      openStage: '5',
      finalizedStages: [],
      senderMayWrite: true,
    });
    expect(out.writers).toEqual([publisherHex()]);
  });

  it('status is read-only: it needs no key, chain id or gas price, and reports no sender', async () => {
    const out = await h.vip([
      'status',
      '--vm',
      'move',
      '--rest',
      h.server.url,
      '--contract',
      bech32Of(KEYS.deployer),
    ]);
    expect(out).toMatchObject({ vm: 'move', initStage: '5', sender: null, senderMayWrite: null });
    expect(out.writers).toEqual([publisherHex()]);
  });

  it('scores 10,000 addresses in simulated batches, confirms each, and checks totals', async () => {
    const { csv, total } = scoresCsv(10_000);
    const file = await h.file('s5.csv', csv);
    const before = h.chain.stats.includedTxs;
    const out = await h.vip(
      updateScoresArgv(h.baseArgs(), publisherHex(), '5', file, '--progress', `${h.dir}/p5.json`),
    );
    expect(out).toMatchObject({
      entries: 10_000,
      fileTotal: String(total),
      onChainTotal: String(total),
      totalsChecked: true,
    });
    const txs = h.chain.stats.includedTxs - before;
    expect(txs).toBe(out.txs);
    expect(txs).toBeGreaterThan(1);
    const m = h.chain.moveModules.get(publisherHex());
    expect(m?.getTotalScore(5n)).toBe(total);
    // 20-byte addresses are left-padded to 32 bytes, as BCS does.
    expect(m?.getScore(`0x${'0'.repeat(24)}ab${'1'.padStart(38, '0')}`, 5n)).toBe(1n);
  });

  it('finalizes once; a repeat is skipped without sending; catches up several stages in order', async () => {
    const args = [...h.baseArgs(), '--contract', publisherHex()];
    await h.vip(['finalize', ...args, '--stage', '5']);
    const m = h.chain.moveModules.get(publisherHex());
    expect(m?.stages.get(5n)?.isFinalized).toBe(true);
    expect(m?.stages.get(6n)).toMatchObject({ totalScore: 0n, isFinalized: false });
    const before = h.chain.stats.includedTxs;
    const again = await h.vip(['finalize', ...args, '--stage', '5']);
    expect(again).toEqual({ finalized: [{ stage: '5', skipped: 'already finalized' }] });
    expect(h.chain.stats.includedTxs).toBe(before);

    const small = await h.file('s6.csv', scoresCsv(3).csv);
    await h.vip([
      'update-scores',
      ...args,
      '--stage',
      '6',
      '--scores',
      small,
      '--progress',
      `${h.dir}/p6.json`,
    ]);
    const caught = await h.vip(['finalize', ...args, '--stage', '6', '--through', '8']);
    expect((caught.finalized as { stage: string }[]).map((r) => r.stage)).toEqual(['6', '7', '8']);
    expect(m?.stages.get(9n)?.isFinalized).toBe(false);
    const status = await h.vip(['status', ...args]);
    expect(status).toMatchObject({ openStage: '9', finalizedStages: ['5', '6', '7', '8'] });
  });

  it('refuses writes to a finalized stage before signing, and the chain aborts with 0x10008', async () => {
    const file = await h.file('late.csv', scoresCsv(2).csv);
    const args = [...h.baseArgs(), '--contract', publisherHex()];
    await expect(h.vip(['update-scores', ...args, '--stage', '5', '--scores', file])).rejects.toMatchObject({
      code: 'stage_finalized',
    });
    await expect(h.vip(['finalize', ...args, '--stage', '12'])).rejects.toMatchObject({
      code: 'stage_not_found',
    });
  });

  it('version reads /abci_info', async () => {
    const out = await h.vip(['version', '--rpc', h.server.url]);
    expect(out).toMatchObject({ data: 'minimove', version: 'v1.0.2' });
  });

  it('never logs key material', () => {
    const all = h.logs.join('');
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain('11'.repeat(32));
    expect(all).not.toContain(KEYS.other.slice(2));
  });
});
