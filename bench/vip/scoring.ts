// VIP scoring throughput: time and tx count to score 10k / 100k addresses per VM (Move and Wasm
// through the chain model, EVM on anvil), and EVM gas per address. Prints one JSON document.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { toBech32 } from '../../src/shared/address.js';
import { createVipChain } from '../../src/sim/vip/chain.js';
import { createVipExtension } from '../../src/sim/vip/extension.js';
import { serveExtensions } from '../../src/sim/vip/server.js';
import { deploy } from '../../src/vip/actions/deploy.js';
import { updateScores } from '../../src/vip/actions/update-scores.js';
import { sendOp } from '../../src/vip/send.js';
import { actionContext, createBackend, VIP_OPTION_DEFAULTS, type VipOptions } from '../../src/vip/setup.js';
import { addressOfPublicKey } from '../../src/vip/signer.js';
import type { VmType } from '../../src/vip/types.js';
import { startAnvil } from '../../test/vip/anvil.js';

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const SIZES = (process.env.VIP_BENCH_SIZES ?? '10000,100000').split(',').map(Number);
/** e.g. VIP_BENCH_VMS=move,wasm skips anvil (its 100,000-address run takes ~8 minutes). */
const VMS = new Set((process.env.VIP_BENCH_VMS ?? 'move,wasm,evm').split(','));
const deps = { env: { K: KEY }, logger: pino({ level: 'silent' }), out: () => undefined };
const dirP = mkdtemp(path.join(tmpdir(), 'vip-bench-'));

async function csv(n: number, tag: string): Promise<string> {
  const lines = ['address,amount'];
  for (let i = 1; i <= n; i++) lines.push(`0x${tag}${i.toString(16).padStart(38, '0')},${i}`);
  const file = path.join(await dirP, `${tag}-${n}.csv`);
  await writeFile(file, lines.join('\n'));
  return file;
}

function baseOptions(vm: VmType, extra: Partial<VipOptions>): VipOptions {
  return { ...VIP_OPTION_DEFAULTS, vm, keyEnv: 'K', pollMs: 2, ...extra };
}

async function scoreRun(o: VipOptions, stage: bigint, n: number, tag: string) {
  const { backend } = await createBackend(o, deps);
  const ctx = actionContext(o, deps, backend);
  const file = await csv(n, tag);
  const t0 = performance.now();
  const r = await updateScores(ctx, {
    stage,
    scoresPath: file,
    duplicates: 'reject',
    progressPath: path.join(await dirP, `${o.vm}-${tag}-${n}.json`),
  });
  return {
    addresses: n,
    txs: r.txs,
    seconds: +((performance.now() - t0) / 1000).toFixed(2),
    totalsChecked: r.totalsChecked,
  };
}

async function cosmosVm(vm: 'move' | 'wasm') {
  const chain = createVipChain({ chainId: `mini${vm}-bench`, vm });
  const pub = secp256k1.getPublicKey(Buffer.from(KEY.slice(2), 'hex'), true);
  chain.fundAccount(toBech32(addressOfPublicKey(pub, 'eth_secp256k1'), 'init'));
  const server = await serveExtensions([createVipExtension(chain)]);
  const o = baseOptions(vm, { rest: server.url, chainId: `mini${vm}-bench`, gasPrices: '0.015umin' });
  const { backend, bind } = await createBackend(o, deps);
  const ctx = actionContext(o, deps, backend);
  const code =
    vm === 'move'
      ? { moduleBytes: Buffer.concat([Buffer.from('a11ceb0b', 'hex'), Buffer.from('vip_score')]) }
      : { wasmBytes: Buffer.from('0061736d01000000', 'hex') };
  const d = (await deploy(ctx, {
    vm,
    chainId: o.chainId ?? '',
    initStage: 1n,
    recordPath: path.join(await dirP, `${vm}.json`),
    bind,
    ...code,
  })) as { record: { contractAddress: string } };
  const runs = [];
  let stage = 1n;
  for (const n of SIZES) {
    runs.push(await scoreRun({ ...o, contract: d.record.contractAddress }, stage, n, `a${SIZES.indexOf(n)}`));
    await sendOp(
      bind(d.record.contractAddress),
      { kind: 'finalize', stage },
      { ...ctx.send, logger: deps.logger },
    );
    stage += 1n;
  }
  await server.close();
  return { vm, via: 'chain model over HTTP', maxTxGas: String(ctx.limits.maxTxGas), runs };
}

async function evm() {
  const anvil = await startAnvil(31337, ['--gas-limit', '60000000']);
  const url = anvil.url;
  try {
    const o = baseOptions('evm', { jsonRpc: url, maxTxGas: 10_000_000n });
    const { backend, bind } = await createBackend(o, deps);
    const ctx = actionContext(o, deps, backend);
    const d = (await deploy(ctx, {
      vm: 'evm',
      chainId: '31337',
      initStage: 1n,
      recordPath: path.join(await dirP, 'evm.json'),
      bind,
    })) as { record: { contractAddress: string } };
    const c = bind(d.record.contractAddress);
    const entries = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        addr: `0x${tag}${(i + 1).toString(16).padStart(38, '0')}`,
        amount: BigInt(i + 1),
      }));
    const gas = async (n: number) =>
      (await c.plan({ kind: 'updateScores', stage: 1n, entries: entries(n, 'ee') })).gasEstimate;
    const [g1, g101] = [await gas(1), await gas(101)];
    await sendOp(
      c,
      { kind: 'updateScores', stage: 1n, entries: entries(100, 'ee') },
      { ...ctx.send, logger: deps.logger },
    );
    const rewrite = (
      await c.plan({
        kind: 'updateScores',
        stage: 1n,
        entries: entries(100, 'ee').map((e) => ({ ...e, amount: e.amount + 1n })),
      })
    ).gasEstimate;
    const rewrite1 = (
      await c.plan({
        kind: 'updateScores',
        stage: 1n,
        entries: entries(1, 'ee').map((e) => ({ ...e, amount: 9n })),
      })
    ).gasEstimate;
    const runs = [];
    let stage = 1n;
    for (const n of SIZES) {
      await sendOp(c, { kind: 'finalize', stage }, { ...ctx.send, logger: deps.logger });
      stage += 1n;
      runs.push(
        await scoreRun({ ...o, contract: d.record.contractAddress }, stage, n, `b${SIZES.indexOf(n)}`),
      );
    }
    return {
      vm: 'evm',
      via: 'anvil 1.7.1 (automine), eth_estimateGas',
      gasPerNewAddress: String((g101 - g1) / 100n),
      gasPerRewrittenAddress: String((rewrite - rewrite1) / 99n),
      gasOneNewAddressTx: String(g1),
      maxTxGas: '10000000',
      runs,
    };
  } finally {
    await anvil.stop();
  }
}

const started = new Date().toISOString();
const results = [
  ...(VMS.has('move') ? [await cosmosVm('move')] : []),
  ...(VMS.has('wasm') ? [await cosmosVm('wasm')] : []),
  ...(VMS.has('evm') ? [await evm()] : []),
];
await rm(await dirP, { recursive: true, force: true });
console.log(JSON.stringify({ bench: 'vip', started, node: process.version, sizes: SIZES, results }, null, 2));
