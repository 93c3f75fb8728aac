import { readFile } from 'node:fs/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { registerVip } from '../../src/bin/commands/vip.js';
import { ANVIL_KEYS, startAnvil, type AnvilHandle } from './anvil.js';
import { scoresCsv } from './harness.js';
import { updateScoresArgv } from './cli-args.js';

let anvil: AnvilHandle;
let dir: string;
let contract: string;
const logs: string[] = [];
const logWatchers = new Set<{ pattern: RegExp; seen: () => void }>();
const outputs: Record<string, unknown>[] = [];
const other = privateKeyToAccount(ANVIL_KEYS[1]).address.toLowerCase();

beforeAll(async () => {
  anvil = await startAnvil(1982194020580198);
  dir = await mkdtemp(path.join(tmpdir(), 'vip-evm-'));
});
afterAll(async () => {
  await anvil?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function vip(args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const program = new Command('rollup-indexer').exitOverride();
  const sink = new Writable({
    write(c: Buffer, _e, cb) {
      const line = c.toString();
      logs.push(line);
      for (const w of logWatchers) {
        if (!w.pattern.test(line)) continue;
        logWatchers.delete(w);
        w.seen();
      }
      cb();
    },
  });
  registerVip(program, {
    env: { OPERATOR_KEY: ANVIL_KEYS[0], OTHER_KEY: ANVIL_KEYS[1], ...env },
    logger: pino({ level: 'debug' }, sink),
    out: (r) => outputs.push(r),
  });
  await program.parseAsync(['node', 'rollup-indexer', 'vip', ...args]);
  return outputs[outputs.length - 1] as Record<string, unknown>;
}
/** Resolves at the next log line matching `pattern` (from this call on). */
const nextLog = (pattern: RegExp) => new Promise<void>((seen) => void logWatchers.add({ pattern, seen }));

/** JSON-RPC straight to anvil (its test methods: automine, mining, the mempool). */
const rpc = (method: string, params: unknown[] = []) =>
  fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((r) => r.json() as Promise<{ result: unknown }>);

const base = (key = 'OPERATOR_KEY') => [
  '--vm',
  'evm',
  '--json-rpc',
  anvil.url,
  '--key-env',
  key,
  '--poll-ms',
  '20',
];

describe('vip CLI on a real EVM (anvil)', () => {
  it('deploy takes JSON_RPC_URL, PRIVATE_KEY and INIT_STAGE from the environment like the reference script', async () => {
    const record = path.join(dir, 'deploy.json');
    const out = await vip(['deploy', '--vm', 'evm', '--record', record], {
      JSON_RPC_URL: anvil.url,
      PRIVATE_KEY: ANVIL_KEYS[0],
      INIT_STAGE: '4',
    });
    const saved = JSON.parse(await readFile(record, 'utf8')) as Record<string, string>;
    expect(out.record).toEqual(saved);
    expect(saved).toMatchObject({
      vm: 'evm',
      chainId: '1982194020580198',
      initStage: '4',
      sender: privateKeyToAccount(ANVIL_KEYS[0]).address.toLowerCase(),
    });
    expect(saved.contractAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    contract = saved.contractAddress as string;
  });

  it('status, update-scores in gas-sized batches, totals, finalize, repeat skipped', async () => {
    expect(await vip(['status', ...base(), '--contract', contract])).toMatchObject({
      initStage: '4',
      openStage: '4',
      senderMayWrite: true,
    });
    // Read-only: no key at all.
    expect(
      await vip(['status', '--vm', 'evm', '--json-rpc', anvil.url, '--contract', contract]),
    ).toMatchObject({
      initStage: '4',
      sender: null,
      senderMayWrite: null,
    });
    const { csv, total } = scoresCsv(1200);
    const file = path.join(dir, 's.csv');
    await writeFile(file, csv);
    const out = await vip(
      updateScoresArgv(
        base(),
        contract,
        '4',
        file,
        '--progress',
        path.join(dir, 'p.json'),
        '--max-tx-gas',
        '8000000',
      ),
    );
    expect(out).toMatchObject({ entries: 1200, onChainTotal: String(total), totalsChecked: true });
    expect(Number(out.txs)).toBeGreaterThan(1);
    await vip(['finalize', ...base(), '--contract', contract, '--stage', '4']);
    const again = await vip(['finalize', ...base(), '--contract', contract, '--stage', '4']);
    expect(again).toEqual({ finalized: [{ stage: '4', skipped: 'already finalized' }] });
    expect(await vip(['status', ...base(), '--contract', contract])).toMatchObject({
      openStage: '5',
      finalizedStages: ['4'],
    });
    await expect(
      vip(['update-scores', ...base(), '--contract', contract, '--stage', '4', '--scores', file]),
    ).rejects.toMatchObject({ code: 'stage_finalized' });
  });

  it('allow list: non-member refused, allow, member writes, disallow', async () => {
    const file = path.join(dir, 'o.csv');
    await writeFile(file, `0x${'cd'.repeat(20)},9\n`);
    const cli = [
      'update-scores',
      ...base('OTHER_KEY'),
      '--contract',
      contract,
      '--stage',
      '5',
      '--scores',
      file,
    ];
    await expect(vip([...cli, '--progress', path.join(dir, 'o1.json')])).rejects.toMatchObject({
      code: 'not_permitted',
    });
    await vip(['allow', other, ...base(), '--contract', contract]);
    expect(await vip([...cli, '--progress', path.join(dir, 'o2.json')])).toMatchObject({ onChainTotal: '9' });
    await vip(['disallow', other, ...base(), '--contract', contract]);
    await expect(vip([...cli, '--progress', path.join(dir, 'o3.json')])).rejects.toMatchObject({
      code: 'not_permitted',
    });
  });

  it('zero address and malformed rows are refused; --dry-run signs nothing', async () => {
    const bad = path.join(dir, 'bad.csv');
    await writeFile(bad, `0x${'0'.repeat(40)},1\n0x12,2\n`);
    await expect(
      vip(['update-scores', ...base(), '--contract', contract, '--stage', '5', '--scores', bad]),
    ).rejects.toMatchObject({ code: 'invalid_scores' });
    const ok = path.join(dir, 'dry.csv');
    await writeFile(ok, `0x${'ef'.repeat(20)},3\n`);
    outputs.length = 0;
    const out = await vip([
      'update-scores',
      ...base(),
      '--contract',
      contract,
      '--stage',
      '5',
      '--scores',
      ok,
      '--dry-run',
    ]);
    expect(out).toMatchObject({ dryRun: true, txs: 1 });
    expect((outputs[0] as { messages: { function: string }[] }).messages[0]?.function).toBe('updateScores');
    const status = await vip(['status', ...base(), '--contract', contract]);
    expect(
      (status.stages as { stage: string; totalScore: string }[]).find((s) => s.stage === '5')?.totalScore,
    ).toBe('9');
  });

  it('a file pushing the stage total past uint64 is refused before signing (the contract would wrap)', async () => {
    const big = path.join(dir, 'big.csv');
    const max = 2n ** 64n - 1n;
    // Stage 5 already totals 9: each amount fits in uint64, the total after the run would not.
    await writeFile(big, `0x${'e1'.repeat(20)},${max - 5n}\n0x${'e2'.repeat(20)},1\n`);
    const owner = privateKeyToAccount(ANVIL_KEYS[0]).address;
    const nonce = async () => (await rpc('eth_getTransactionCount', [owner, 'latest'])).result;
    const before = await nonce();
    const cli = ['update-scores', ...base(), '--contract', contract, '--stage', '5', '--scores', big];
    await expect(vip(cli)).rejects.toMatchObject({
      code: 'score_total_overflow',
      message: expect.stringContaining('stage 5 total would exceed the u64 maximum'),
    });
    expect(await nonce()).toBe(before);
  });

  it('a tx mined only after the confirmation timeout is found by hash, not sent twice', async () => {
    const owner = privateKeyToAccount(ANVIL_KEYS[0]).address;
    const nonceBefore = Number((await rpc('eth_getTransactionCount', [owner, 'latest'])).result);
    // Automine off: the tx waits in anvil's mempool until the test mines it, which it does once
    // the tool has logged that its first wait ended (a condition, not a guessed delay).
    await rpc('evm_setAutomine', [false]);
    const gaveUp = nextLog(/not confirmed in time/);
    const command = vip([
      'allow',
      `0x${'77'.repeat(20)}`,
      ...base(),
      '--contract',
      contract,
      '--confirm-timeout-ms',
      '400',
    ]);
    const ended = command.then(
      () => 'ended',
      () => 'ended',
    );
    try {
      expect(await Promise.race([gaveUp.then(() => 'gave up'), ended])).toBe('gave up');
      expect((await rpc('txpool_status')).result).toEqual({ pending: '0x1', queued: '0x0' });
      await rpc('evm_mine');
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(await command).toMatchObject({ op: 'allow' });
    expect(Number((await rpc('eth_getTransactionCount', [owner, 'latest'])).result)).toBe(nonceBefore + 1);
    expect((await rpc('txpool_status')).result).toEqual({ pending: '0x0', queued: '0x0' });
  });

  it('never logs the private key', () => {
    const all = logs.join('');
    for (const k of ANVIL_KEYS) expect(all).not.toContain(k.slice(2));
  });
});
