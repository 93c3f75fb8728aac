import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBackend } from './in-process.js';
import { FAKE_MOVE_MODULE, FAKE_WASM, startHarness, type Harness } from './harness.js';

const MAX = (1n << 64n) - 1n;
const A = `0x${'ab'.repeat(20)}`;
const B = `0x${'cd'.repeat(20)}`;

/** A deployed score contract (initial stage 1) on a fresh simulator chain of this VM. */
async function deployed(vm: 'move' | 'wasm'): Promise<{ h: Harness; contract: string }> {
  const h = await startHarness(vm);
  const code = await h.file('code', vm === 'move' ? FAKE_MOVE_MODULE : FAKE_WASM);
  const out = await h.vip([
    'deploy',
    ...h.baseArgs(),
    vm === 'move' ? '--module' : '--wasm',
    code,
    '--init-stage',
    '1',
    '--record',
    `${h.dir}/record.json`,
  ]);
  return { h, contract: (out.record as { contractAddress: string }).contractAddress };
}

describe.each(['move', 'wasm'] as const)('u64 limits are checked before signing (%s)', (vm) => {
  let h: Harness;
  let contract: string;
  beforeAll(async () => ({ h, contract } = await deployed(vm)));
  afterAll(async () => h?.close());

  const updateScores = async (name: string, csv: string) =>
    h
      .vip([
        'update-scores',
        ...h.baseArgs(),
        '--contract',
        contract,
        '--stage',
        '1',
        '--scores',
        await h.file(name, csv),
        '--progress',
        `${h.dir}/${name}.progress.json`,
      ])
      .catch((err: unknown) => err as { code: string; message: string });

  it('an amount past u64::MAX is refused naming its row and address', async () => {
    const before = h.chain.stats.includedTxs;
    const err = await updateScores('big.csv', `address,amount\n${A},1\n${B},${MAX + 1n}\n`);
    expect(err).toMatchObject({ code: 'invalid_scores', name: 'InputError' });
    expect(err.message).toContain(`row 3 (${B}): amount ${MAX + 1n} exceeds the u64 maximum ${MAX}`);
    expect(h.chain.stats.includedTxs).toBe(before);
  });

  it('a file whose amounts add up past u64::MAX is refused; nothing is sent', async () => {
    const before = h.chain.stats.includedTxs;
    const err = await updateScores('sum.csv', `${A},${1n << 63n}\n${B},${1n << 63n}\n`);
    expect(err).toMatchObject({ code: 'score_total_overflow', name: 'InputError' });
    expect(err.message).toContain(`the file's amounts add up to ${1n << 64n}`);
    expect(h.chain.stats.includedTxs).toBe(before);
  });

  it('the on-chain total plus the file past u64::MAX is refused; up to the maximum is written', async () => {
    expect(await updateScores('near.csv', `${A},${MAX - 10n}\n`)).toMatchObject({
      onChainTotal: String(MAX - 10n),
    });
    const before = h.chain.stats.includedTxs;
    const err = await updateScores('over.csv', `${B},11\n`);
    expect(err).toMatchObject({ code: 'score_total_overflow' });
    expect(err.message).toContain(`the stage already totals ${MAX - 10n} and the file adds up to 11`);
    expect(err.message).toContain(vm === 'move' ? 'ARITHMETIC_ERROR' : 'wrap the total silently');
    expect(h.chain.stats.includedTxs).toBe(before);
    expect(await updateScores('exact.csv', `${B},10\n`)).toMatchObject({ txs: 1 });
    const info = await (await harnessBackend(h, vm, contract)).stageInfo(1n);
    expect(info?.totalScore).toBe(MAX);
  });
});

describe('a Move overflow that reaches the chain is decoded', () => {
  let h: Harness;
  let contract: string;
  beforeAll(async () => ({ h, contract } = await deployed('move')));
  afterAll(async () => h?.close());

  it('simulation fails with ARITHMETIC_ERROR (code 1, codespace undefined), not a module abort', async () => {
    const b = await harnessBackend(h, 'move', contract);
    const entries = [
      { addr: b.normaliseAddress(A), amount: MAX },
      { addr: b.normaliseAddress(B), amount: 1n },
    ];
    await expect(b.plan({ kind: 'updateScores', stage: 1n, entries })).rejects.toMatchObject({
      name: 'ChainError',
      reason: 'ARITHMETIC_ERROR',
      message: expect.stringContaining('VM failure: status ARITHMETIC_ERROR of type Execution'),
    });
  });
});
