import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  encodeAbiParameters,
  http,
  keccak256,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { VIP_SCORE_ABI } from '../../src/vip/evm/abi.js';
import { decodeRevert } from '../../src/vip/evm/backend.js';
import { ANVIL_KEYS, anvilChain, startAnvil, type AnvilHandle } from './anvil.js';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const ZERO = '0x0000000000000000000000000000000000000000';
const owner = privateKeyToAccount(ANVIL_KEYS[0]);
const other = privateKeyToAccount(ANVIL_KEYS[1]);

let anvil: AnvilHandle;
let bytecode: Hex;

beforeAll(async () => {
  anvil = await startAnvil();
  const artifact = JSON.parse(await readFile(path.resolve('contracts', 'VipScore.json'), 'utf8')) as {
    bytecode: Hex;
  };
  bytecode = artifact.bytecode;
});
afterAll(async () => anvil?.stop());

function clients(account = owner) {
  const transport = http(anvil.url);
  const chain = anvilChain(anvil);
  return {
    pub: createPublicClient({ chain, transport }),
    wallet: createWalletClient({ chain, transport, account }),
  };
}

async function deploy(initStage: bigint): Promise<Hex> {
  const { pub, wallet } = clients();
  const hash = await wallet.deployContract({ abi: VIP_SCORE_ABI, bytecode, args: [initStage] });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('no contract');
  return receipt.contractAddress;
}

/** Sends a call; answers the decoded custom error name, or the receipt's logs on success. */
async function send(address: Hex, functionName: string, args: readonly unknown[], account = owner) {
  const { pub, wallet } = clients(account);
  try {
    const { request } = await pub.simulateContract({
      address,
      abi: VIP_SCORE_ABI,
      functionName,
      args,
      account,
    } as never);
    const hash = await wallet.writeContract(request as never);
    const receipt = await pub.waitForTransactionReceipt({ hash });
    const logs = receipt.logs.map((l) =>
      decodeEventLog({ abi: VIP_SCORE_ABI, data: l.data, topics: l.topics }),
    );
    return { ok: true as const, logs, gasUsed: receipt.gasUsed };
  } catch (err) {
    const decoded = decodeRevert(err);
    return { ok: false as const, error: decoded.reason, message: decoded.message };
  }
}

async function read<T>(address: Hex, functionName: string, args: readonly unknown[] = []): Promise<T> {
  return (await clients().pub.readContract({
    address,
    abi: VIP_SCORE_ABI,
    functionName,
    args,
  } as never)) as T;
}

describe('VipScore on anvil (docs/vip-contracts.md §1.1, §6)', () => {
  it('constructor: ZeroStage for 0; sender allowed; init stage created with CreateStage', async () => {
    const { pub, wallet } = clients();
    await expect(wallet.deployContract({ abi: VIP_SCORE_ABI, bytecode, args: [0n] })).rejects.toSatisfy(
      (err) => decodeRevert(err).reason === 'ZeroStage',
    );
    const hash = await wallet.deployContract({ abi: VIP_SCORE_ABI, bytecode, args: [5n] });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    const created = decodeEventLog({ abi: VIP_SCORE_ABI, ...receipt.logs[0]! } as never);
    expect(created).toMatchObject({ eventName: 'CreateStage', args: { stage: 5n } });
    const address = receipt.contractAddress!;
    expect(await read(address, 'initStage')).toBe(5n);
    expect(await read(address, 'stages', [5n])).toEqual([5n, 0n, false]);
    expect(await read(address, 'stages', [6n])).toEqual([0n, 0n, false]);
    expect(await read(address, 'allowList', [owner.address])).toBe(true);
    expect(await read(address, 'allowList', [other.address])).toBe(false);
  });

  it('permissions, length mismatch, stage not found, zero address skip, totals, getScores padding', async () => {
    const c = await deploy(5n);
    expect(await send(c, 'updateScores', [5n, [A], [1n]], other)).toMatchObject({
      error: 'PermissionDenied',
    });
    expect(await send(c, 'finalizeStage', [5n], other)).toMatchObject({ error: 'PermissionDenied' });
    expect(await send(c, 'addAllowList', [other.address], other)).toMatchObject({
      error: 'PermissionDenied',
    });
    // Every other mutating call is guarded the same way (onlyAllower runs first).
    for (const [fn, args] of [
      ['updateScore', [5n, A, 1n]],
      ['increaseScore', [5n, A, 1n]],
      ['decreaseScore', [5n, A, 1n]],
      ['removeAllowList', [owner.address]],
    ] as const) {
      expect(await send(c, fn, args, other)).toMatchObject({ error: 'PermissionDenied' });
    }
    expect(await send(c, 'updateScores', [5n, [A, B], [1n]])).toMatchObject({
      error: 'AddrsAndAmountsLengthMistmatch',
    });
    expect(await send(c, 'updateScores', [4n, [A], [1n]])).toMatchObject({ error: 'StageNotFound' });
    expect(await send(c, 'updateScores', [6n, [A], [1n]])).toMatchObject({ error: 'StageNotFound' });
    expect(await send(c, 'finalizeStage', [6n])).toMatchObject({ error: 'StageNotFound' });
    expect(await send(c, 'updateScores', [99n, [ZERO], [1n]])).toMatchObject({ ok: true, logs: [] });
    expect(await send(c, 'updateScores', [99n, [], []])).toMatchObject({ ok: true, logs: [] });

    const res = await send(c, 'updateScores', [5n, [A, B, A], [10n, 20n, 30n]]);
    expect(res.ok && res.logs.map((l) => l.eventName)).toEqual(['UpdateScore', 'UpdateScore', 'UpdateScore']);
    expect(res.ok && res.logs[2]).toMatchObject({
      args: { addr: expect.stringMatching(/aa$/i), stage: 5n, score: 30n, totalScore: 50n },
    });
    expect(await read(c, 'stages', [5n])).toEqual([5n, 50n, false]);
    expect(await read(c, 'scores', [5n, A])).toEqual([true, 30n]);
    const rows = await read<{ addr: string; amount: bigint; index: bigint }[]>(c, 'getScores', [5n, 0n, 4n]);
    expect(rows.map((r) => [r.addr.toLowerCase(), r.amount, r.index])).toEqual([
      [A, 30n, 1n],
      [B, 20n, 2n],
      [ZERO, 0n, 0n],
      [ZERO, 0n, 0n],
    ]);
    const second = await read<{ addr: string; index: bigint }[]>(c, 'getScores', [5n, 1n, 1n]);
    expect(second.map((r) => [r.addr.toLowerCase(), r.index])).toEqual([[B, 2n]]);
    // Private scoreLength lives at keccak(stage, 4).
    const slot = keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [5n, 4n]));
    expect(BigInt((await clients().pub.getStorageAt({ address: c, slot })) ?? 0)).toBe(2n);
    // docs/vip-contracts.md §6 raw slots: stages[5] packs stage@0, totalScore@8, isFinalized@16 (0x32…05);
    // scores[5][A] packs isIndexed@0, amount@1 (0x1e01).
    const word = async (s: Hex) => BigInt((await clients().pub.getStorageAt({ address: c, slot: s })) ?? 0);
    const stageSlot = keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [5n, 1n]));
    expect(await word(stageSlot)).toBe((50n << 64n) | 5n);
    const inner = keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [5n, 2n]));
    const scoreSlot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [A, inner]));
    expect(await word(scoreSlot)).toBe(0x1e01n);
  });

  it('single updates, increase/decrease with Panic(0x11), update to 0 stays indexed', async () => {
    const c = await deploy(1n);
    expect(await send(c, 'increaseScore', [1n, A, 7n])).toMatchObject({ ok: true });
    expect(await send(c, 'increaseScore', [1n, A, 3n])).toMatchObject({ ok: true });
    expect(await send(c, 'decreaseScore', [1n, A, 4n])).toMatchObject({ ok: true });
    expect(await read(c, 'scores', [1n, A])).toEqual([true, 6n]);
    const under = await send(c, 'decreaseScore', [1n, A, 100n]);
    expect(under.ok).toBe(false);
    expect(under.ok ? '' : under.message).toMatch(/underflow|overflow|0x11|17/i);
    expect(await send(c, 'increaseScore', [1n, B, 2n ** 64n - 1n])).toMatchObject({ ok: false });
    expect(await send(c, 'updateScore', [1n, B, 9n])).toMatchObject({ ok: true });
    expect(await send(c, 'updateScore', [1n, A, 0n])).toMatchObject({ ok: true });
    expect(await read(c, 'scores', [1n, A])).toEqual([true, 0n]);
    expect(await read(c, 'stages', [1n])).toEqual([1n, 9n, false]);
    const rows = await read<{ addr: string }[]>(c, 'getScores', [1n, 0n, 2n]);
    expect(rows.map((r) => r.addr.toLowerCase())).toEqual([A, B]);
  });

  it('u64 limits: checked adds revert Panic(0x11); updateScores wraps the total like the reference', async () => {
    const MAX = 2n ** 64n - 1n;
    const c = await deploy(1n);
    expect(await send(c, 'increaseScore', [1n, A, MAX])).toMatchObject({ ok: true });
    const over = await send(c, 'increaseScore', [1n, B, 1n]);
    expect(over).toMatchObject({ ok: false, error: 'Panic', message: 'contract reverted: Panic(17)' });
    expect(await read(c, 'stages', [1n])).toEqual([1n, MAX, false]);
    // updateScores goes through an unchecked int128 → uint64 cast (docs/vip-contracts.md §1.1): it succeeds
    // and the total wraps, which is why the CLI refuses such a file before signing.
    const wrapped = await send(c, 'updateScores', [1n, [B], [2n]]);
    expect(wrapped.ok && wrapped.logs[0]).toMatchObject({ args: { score: 2n, totalScore: 1n } });
    expect(await read(c, 'stages', [1n])).toEqual([1n, 1n, false]);
    // finalizeStage computes stage + 1 with a checked add.
    const top = await deploy(MAX);
    expect(await send(top, 'finalizeStage', [MAX])).toMatchObject({ ok: false, error: 'Panic' });
    expect(await read(top, 'stages', [MAX])).toEqual([MAX, 0n, false]);
  });

  it('finalize: FinalizeStage then CreateStage; StageFinalized on writes; re-finalize is a no-op', async () => {
    const c = await deploy(5n);
    await send(c, 'updateScores', [5n, [A], [10n]]);
    const fin = await send(c, 'finalizeStage', [5n]);
    expect(fin.ok && fin.logs.map((l) => [l.eventName, (l.args as { stage: bigint }).stage])).toEqual([
      ['FinalizeStage', 5n],
      ['CreateStage', 6n],
    ]);
    expect(await send(c, 'updateScores', [5n, [A], [1n]])).toMatchObject({ error: 'StageFinalized' });
    expect(await send(c, 'updateScore', [5n, A, 1n])).toMatchObject({ error: 'StageFinalized' });
    expect(await send(c, 'increaseScore', [5n, A, 1n])).toMatchObject({ error: 'StageFinalized' });
    await send(c, 'updateScores', [6n, [B], [7n]]);
    const again = await send(c, 'finalizeStage', [5n]);
    expect(again.ok && again.logs.map((l) => l.eventName)).toEqual(['FinalizeStage']);
    expect(await read(c, 'stages', [6n])).toEqual([6n, 7n, false]);
    expect(await read(c, 'stages', [5n])).toEqual([5n, 10n, true]);
  });

  it('allow list: add, new member writes, remove (even itself)', async () => {
    const c = await deploy(1n);
    expect(await send(c, 'addAllowList', [other.address])).toMatchObject({ ok: true, logs: [] });
    expect(await send(c, 'updateScores', [1n, [A], [3n]], other)).toMatchObject({ ok: true });
    expect(await send(c, 'removeAllowList', [owner.address], other)).toMatchObject({ ok: true });
    expect(await read(c, 'allowList', [owner.address])).toBe(false);
    expect(await send(c, 'updateScores', [1n, [A], [4n]])).toMatchObject({ error: 'PermissionDenied' });
    expect(await send(c, 'removeAllowList', [other.address], other)).toMatchObject({ ok: true });
    expect(await send(c, 'finalizeStage', [1n], other)).toMatchObject({ error: 'PermissionDenied' });
  });
});
