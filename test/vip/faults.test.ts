import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MsgExecute } from '@initia/initia.proto/initia/move/v1/tx.js';
import { registerVip } from '../../src/bin/commands/vip.js';
import { runCli } from '../../src/bin/run.js';
import { createCosmosCore } from '../../src/vip/cosmos/core.js';
import { createCosmosRest } from '../../src/vip/cosmos/rest.js';
import { signCosmosTx } from '../../src/vip/cosmos/tx.js';
import { b64, bcsAddress, bcsU64, bcsVector } from '../../src/vip/move/bcs.js';
import { createLocalSigner } from '../../src/vip/signer.js';
import type { Progress } from '../../src/vip/progress.js';
import { harnessBackend, quietDeps, type TestKey } from './in-process.js';
import { bech32Of, KEYS, scoresCsv, startHarness, type Harness } from './harness.js';
import { deployVipScore, updateScoresArgv } from './cli-args.js';
import * as cases from './fault-cases.js';

let h: Harness;
let pub: string;

const backend = (key: TestKey = 'deployer') => harnessBackend(h, 'move', pub, key);

beforeAll(async () => {
  h = await startHarness('move');
  await deployVipScore(h);
  // The module's hex address (the record names the publisher's bech32 account).
  pub = h.chain.moveModules.keys().next().value as string;
});
afterAll(async () => h?.close());

const A = `0x${'0'.repeat(24)}${'ab'.repeat(20)}`;

/** argv of `vip update-scores` against the published module, as the deployer. */
const updateScores = (stage: string, scores: string, ...extra: string[]): string[] =>
  updateScoresArgv(h.baseArgs(), pub, stage, scores, ...extra);

describe('Move error paths decode to the module abort codes', () => {
  it('not permitted (EUNAUTHORIZED 0x10001), publisher-only (0x50001)', async () => {
    const other = await backend('other');
    await expect(
      other.plan({ kind: 'updateScores', stage: 1n, entries: [{ addr: A, amount: 1n }] }),
    ).rejects.toMatchObject({ reason: 'EUNAUTHORIZED' });
    await expect(other.plan({ kind: 'addDeployer', addr: A })).rejects.toMatchObject({
      reason: 'EUNAUTHORIZED(publisher)',
    });
    await expect(
      (await backend()).plan({
        kind: 'addDeployer',
        addr: (await backend()).normaliseAddress(bech32Of(KEYS.deployer)),
      }),
    ).rejects.toMatchObject({ reason: 'EDEPLOYER_ALREADY_ADDED' });
    await expect((await backend()).plan({ kind: 'setInitStage', stage: 2n })).rejects.toMatchObject({
      reason: 'EALREADY_SET',
    });
  });

  it('stage missing (0x10003), length mismatch (0x10006)', async () => {
    const b = await backend();
    await expect(
      b.plan({ kind: 'updateScores', stage: 7n, entries: [{ addr: A, amount: 1n }] }),
    ).rejects.toMatchObject({ reason: 'EINVALID_STAGE' });
    const signer = createLocalSigner(Buffer.from(KEYS.deployer.slice(2), 'hex'), 'eth_secp256k1');
    const core = createCosmosCore({
      rest: createCosmosRest({ baseUrl: h.server.url, timeoutMs: 5000 }),
      signer,
      chainId: h.chain.options.chainId,
      gasPrice: '0.015umin',
      gasAdjustment: 1.4,
      maxTxGas: 10_000_000n,
      prefix: 'init',
    });
    const msg = MsgExecute.encode({
      sender: await core.senderBech32(),
      moduleAddress: pub,
      moduleName: 'vip_score',
      functionName: 'update_score_script',
      typeArgs: [],
      args: [bcsU64(1n), bcsVector([bcsAddress(A)]), bcsVector([])],
    }).finish();
    await expect(
      core.simulate([{ typeUrl: '/initia.move.v1.MsgExecute', value: msg }]),
    ).rejects.toMatchObject({ reason: 'ENOT_MATCH_LENGTH' });
    expect(b64(bcsU64(5n))).toBe('BQAAAAAAAAA=');
  });

  it('bad address rows are refused before anything is signed', () =>
    cases.expectBadRowsRefused(
      h,
      pub,
      `${A},1\nnot-an-address,2\n0x${'1'.repeat(70)},3\n${A.slice(0, 10)},abc\n`,
      3,
    ));
});

describe('signatures are verified as a node would', () => {
  it('wrong chain id → signature verification failed (code 4) at broadcast; CLI exits non-zero', async () => {
    const program = new Command('rollup-indexer').exitOverride();
    registerVip(program, { ...quietDeps, out: () => undefined });
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((m: string) => void errors.push(m));
    const file = await h.file('one.csv', `${A},1\n`);
    const argv = [
      'node',
      'x',
      'vip',
      'update-scores',
      '--vm',
      'move',
      '--rest',
      h.server.url,
      '--chain-id',
      'wrong-chain',
      '--gas-prices',
      '0.015umin',
      '--key-env',
      'DEPLOYER_KEY',
      '--contract',
      pub,
      '--stage',
      '1',
      '--scores',
      file,
      '--progress',
      `${h.dir}/w.json`,
    ];
    await runCli(program, argv);
    spy.mockRestore();
    expect(process.exitCode).toBe(2);
    process.exitCode = 0;
    expect(errors.join('\n')).toMatch(/code 4.*signature verification failed/);
  });

  it('tampered bytes and replayed sequences are rejected', async () => {
    const b = await backend();
    const planned = await b.plan({ kind: 'updateScores', stage: 1n, entries: [{ addr: A, amount: 3n }] });
    const signed = await b.sign(planned);
    const tampered = Uint8Array.from(signed.raw);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1;
    expect(await b.broadcast({ ...signed, raw: tampered })).toMatchObject({ accepted: false, code: 4 });
    expect(await b.broadcast(signed)).toMatchObject({ accepted: true });
    const signer = createLocalSigner(Buffer.from(KEYS.deployer.slice(2), 'hex'), 'eth_secp256k1');
    const replay = await signCosmosTx(
      {
        messages: (planned.request as { messages: never[] }).messages,
        memo: 'x',
        gasLimit: planned.gasLimit,
        fee: [{ denom: 'umin', amount: '999999' }],
        chainId: h.chain.options.chainId,
        accountNumber: 1n,
        sequence: 0n,
        publicKey: await signer.publicKey(),
        algo: 'eth_secp256k1',
      },
      signer,
    );
    expect(await b.broadcast({ ...signed, raw: replay.raw, hash: replay.hash })).toMatchObject({
      accepted: false,
      code: 32,
    });
  });
});

describe('broadcast faults', () => {
  it('a rejected broadcast (non-zero code) fails the command with that code', () =>
    cases.expectBroadcastRejected(
      h,
      pub,
      A,
      'insufficient fees; got: 1umin required: 2umin: insufficient fee',
    ));

  it('confirmation timeout, tx lands later: same bytes re-checked, executed exactly once', async () => {
    await cases.expectLateTxConfirmedOnce(h, pub, A);
    expect(h.logs.join('')).toMatch(/not confirmed in time/);
  });

  it('HTTP answer lost after the node accepted the tx: found by hash, not re-sent as a new tx', async () => {
    h.chain.faults.failNextBroadcastResponse = true;
    const file = await h.file('l.csv', `${A},6\n`);
    const before = h.chain.stats.includedTxs;
    await h.vip(updateScores('1', file, '--progress', `${h.dir}/l.json`));
    expect(h.chain.stats.includedTxs - before).toBe(1);
  });
});

describe('interrupted update-scores', () => {
  const failedBatch = { stage: 2, rows: 3000, offset: 50_000, maxBatch: 300, batches: 10 };
  const pendingBatch = { stage: 3, rows: 1000, offset: 90_000, maxBatch: 250, batches: 4 };

  it('resumes after a failed batch and sends only the missing batches', () =>
    cases.expectResumeAfterFailedBatch(h, pub, failedBatch));

  it('a signed batch left pending by a crash is found on chain at resume, not sent twice', () =>
    cases.expectPendingBatchFoundAtResume(h, pub, pendingBatch));

  it('a progress file that disagrees with the chain is refused', async () => {
    const { csv } = scoresCsv(10, 95_000);
    const file = await h.file('m.csv', csv);
    const progress = `${h.dir}/mismatch.json`;
    const cli = updateScores('3', file, '--progress', progress, '--max-batch', '5');
    await h.vip([...cli, '--dry-run']);
    const { writeFile } = await import('node:fs/promises');
    const fake: Progress = {
      version: 1,
      vm: 'move',
      contract: pub,
      stage: '3',
      fileHash: (await import('node:crypto')).createHash('sha256').update(csv).digest('hex'),
      totalBefore: '0',
      batches: [
        [0, 5],
        [5, 10],
      ],
      done: [{ index: 0, txHash: 'AB'.repeat(32) }],
    };
    await writeFile(progress, JSON.stringify(fake));
    await expect(h.vip(cli)).rejects.toMatchObject({ code: 'progress_mismatch' });
  });
});

describe('out of gas after CheckTx', () => {
  it('a simulation that under-estimates: the failed tx is final, gas is raised ×1.2 and the batch re-sent', async () => {
    await h.vip(['finalize', ...h.baseArgs(), '--contract', pub, '--stage', '3']);
    const { csv, total } = scoresCsv(600, 120_000);
    const file = await h.file('oog.csv', csv);
    h.chain.faults.simulateGasFactor = 0.6;
    const failedBefore = h.chain.stats.failedTxs;
    try {
      const out = await h.vip(
        updateScores('4', file, '--progress', `${h.dir}/oog.json`, '--max-batch', '200'),
      );
      expect(out).toMatchObject({ onChainTotal: String(total), totalsChecked: true });
    } finally {
      delete h.chain.faults.simulateGasFactor;
    }
    // 0.6 × 1.4 = 0.84 of the need: fails; ×1.2 = 1.008: enough, kept for the later batches.
    expect(h.chain.stats.failedTxs - failedBefore).toBe(1);
    expect(h.logs.join('')).toMatch(/out of gas; retrying with more gas/);
  });
});
