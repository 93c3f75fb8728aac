/**
 * Ingest throughput with NFT collection on and off, on the same simulated chain, into PostgreSQL
 * (issue 10 figure).
 *   npx tsx bench/ingest/nft.ts [--vm move|wasm|evm|all] [--blocks N] [--txs SPEC] [--nft-share S]
 * The simulator's NFT workload makes a share of the txs NFT operations (create, mint, transfer, URI
 * change, burn, IBC receipt): four in five by default (an NFT-heavy chain), `--nft-share 0.2` for
 * the simulator's default of one in five (the sim's `--nft-share`, a multiple of 0.05). With NFT
 * collection on, each mint also costs a node look-up (Move Nft resource, ERC721 tokenURI) at its
 * height. Prints one JSON object per run. Needs
 * TEST_DATABASE_URL (or defaults to local postgres).
 */
import { parseArgs } from 'node:util';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { cpuSeconds } from '../lib/http-load.js';
import { benchIngestService, peakRssMb, startBenchChain, type SimProcess } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    vm: { type: 'string', default: 'all' },
    blocks: { type: 'string', default: '3000' },
    txs: { type: 'string', default: '10' },
    'nft-share': { type: 'string', default: '0.8' },
  },
});
const nftShare = values['nft-share'];
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const blocks = Number(values.blocks);

async function run(sim: SimProcess, vm: 'move' | 'wasm' | 'evm', nftIndexing: boolean) {
  const { db, dispose } = await createPostgresTestDb(baseUrl);
  try {
    const service = await benchIngestService(sim, db, vm, { stages: { nftIndexing } });
    let txs = 0;
    const simCpu0 = await cpuSeconds(sim.pid);
    const ownCpu0 = process.cpuUsage();
    const started = performance.now();
    await service.run({
      signal: new AbortController().signal,
      untilHeight: blocks,
      onCommit: (p) => (txs = p.txs),
    });
    const seconds = (performance.now() - started) / 1000;
    const ownCpu = process.cpuUsage(ownCpu0);
    const simCpu = (await cpuSeconds(sim.pid)) - simCpu0;
    await service.close();
    const { rows } = await db.query<{ tokens: string; edges: string }>(
      `SELECT (SELECT count(*) FROM nft) AS tokens, (SELECT count(*) FROM tx_nfts) AS edges`,
    );
    return {
      bench: 'nft-ingest',
      vm,
      nftIndexing,
      db: 'postgres',
      blocks,
      nftShare: Number(nftShare),
      txs,
      liveTokens: Number(rows[0]!.tokens),
      nftTxEdges: Number(rows[0]!.edges),
      seconds: Math.round(seconds * 100) / 100,
      blocksPerSec: Math.round(blocks / seconds),
      txsPerSec: Math.round(txs / seconds),
      // Where the time went: the simulator answering (blocks and look-ups) vs this process
      // (decode, collect, write); PostgreSQL is the rest. All share the machine's cores.
      simCpuSeconds: Math.round(simCpu * 10) / 10,
      indexerCpuSeconds: Math.round(((ownCpu.user + ownCpu.system) / 1e6) * 10) / 10,
      peakRssMb: peakRssMb(),
    };
  } finally {
    await dispose();
  }
}

const vms = values.vm === 'all' ? (['move', 'wasm', 'evm'] as const) : [values.vm as 'move' | 'wasm' | 'evm'];
for (const vm of vms) {
  for (const nft of [false, true]) {
    // A fresh simulator per run, so both runs read an equally cold chain.
    const sim = await startBenchChain(vm, blocks, values.txs, ['--nft-share', nftShare]);
    try {
      console.log(JSON.stringify(await run(sim, vm, nft)));
    } finally {
      await sim.stop();
    }
  }
}
