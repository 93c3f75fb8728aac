import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bech32Of, FAKE_MOVE_MODULE, KEYS, startHarness, type Harness } from './harness.js';
import { deployVipScore, updateScoresArgv } from './cli-args.js';

// Issue 5: `--dry-run` on every sending command, and `--duplicates sum|last` (refused otherwise).
let h: Harness;
let pub: string;

beforeAll(async () => {
  h = await startHarness('move');
  ({ contract: pub } = await deployVipScore(h));
});
afterAll(async () => h?.close());

const A = `0x${'a1'.repeat(20)}`;
const B = `0x${'b2'.repeat(20)}`;
const move32 = (hex20: string) => `0x${'0'.repeat(24)}${hex20.slice(2)}`;
const module = () => h.chain.moveModule(pub);
const sequence = () => h.chain.account(bech32Of(KEYS.deployer))?.sequence;

describe('--dry-run prints the messages and fee of every sending command and signs nothing', () => {
  it('deploy, add-deployer and finalize (Move)', async () => {
    const txs = h.chain.stats.includedTxs;
    const seq = sequence();
    const mv = await h.file('again.mv', FAKE_MOVE_MODULE);
    const common = [...h.baseArgs(), '--dry-run'];
    const deploy = await h.vip(['deploy', ...common, '--module', mv, '--init-stage', '1']);
    expect(deploy).toMatchObject({
      dryRun: true,
      fee: expect.stringMatching(/^\d+umin$/),
      messages: [{ '@type': '/initia.move.v1.MsgPublish' }],
      thenSends: ['add_deployer_script', 'set_init_stage'],
    });
    const add = await h.vip(['add-deployer', bech32Of(KEYS.other), ...common, '--contract', pub]);
    expect(add).toMatchObject({
      dryRun: true,
      messages: [{ '@type': '/initia.move.v1.MsgExecute', function_name: 'add_deployer_script' }],
    });
    const fin = await h.vip(['finalize', ...common, '--contract', pub, '--stage', '1']);
    expect(fin).toEqual({ finalized: [{ stage: '1', dryRun: true }] });
    expect(h.outputs.some((o) => JSON.stringify(o).includes('finalize_script'))).toBe(true);
    expect(h.chain.stats.includedTxs).toBe(txs);
    expect(sequence()).toBe(seq);
    expect(module()?.deployers.size).toBe(1);
    expect(module()?.stages.get(1n)?.isFinalized).toBe(false);
  });
});

describe('duplicate addresses', () => {
  const run = async (name: string, ...extra: string[]) =>
    h
      .vip(
        updateScoresArgv(
          h.baseArgs(),
          pub,
          '1',
          await h.file(name, `${A},5\n${B},1\n${A.toUpperCase().replace('0X', '0x')},7\n`),
          '--progress',
          `${h.dir}/${name}.json`,
          ...extra,
        ),
      )
      .catch((err: unknown) => err as { code: string; message: string });

  it('are refused by default (also across address spellings), before anything is signed', async () => {
    const txs = h.chain.stats.includedTxs;
    const err = await run('dup.csv');
    expect(err).toMatchObject({ code: 'invalid_scores' });
    expect(err.message).toMatch(/1 duplicate address\(es\).*--duplicates sum\|last/);
    expect(h.chain.stats.includedTxs).toBe(txs);
  });

  it('--duplicates sum adds them, --duplicates last keeps the last one; the merge is logged', async () => {
    expect(await run('sum.csv', '--duplicates', 'sum')).toMatchObject({ entries: 2, fileTotal: '13' });
    expect(module()?.getScore(move32(A), 1n)).toBe(12n);
    expect(await run('last.csv', '--duplicates', 'last')).toMatchObject({ entries: 2, fileTotal: '8' });
    expect(module()?.getScore(move32(A), 1n)).toBe(7n);
    expect(module()?.getTotalScore(1n)).toBe(8n);
    expect(h.logs.join('')).toMatch(/duplicate addresses merged/);
  });
});
