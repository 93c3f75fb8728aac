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
 *
 * `--nft-triggers on|off|both` (default `on`): `off` drops migration 0019's statement triggers that
 * bump `nft_version` (docs/api.md §1.9.1) in the bench's own database before it ingests, so the
 * runs with NFT collection on show what the triggers cost; `both` runs NFT collection on with and
 * without them (and skips the run with it off). The cost lands in PostgreSQL, not in this process:
 * each run reports its database backends' CPU (bench/lib/http-load.ts) and CPU µs per block of
 * this process, of the backends and of both together.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { cpuSeconds, followBackends } from '../lib/http-load.js';
import { benchIngestService, peakRssMb, startBenchChain, type SimProcess } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    vm: { type: 'string', default: 'all' },
    blocks: { type: 'string', default: '3000' },
    txs: { type: 'string', default: '10' },
    'nft-share': { type: 'string', default: '0.8' },
    'nft-triggers': { type: 'string', default: 'on' },
  },
});
const nftShare = values['nft-share'];
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const blocks = Number(values.blocks);

/** migration 0019's triggers, dropped by `--nft-triggers off` (in the bench's database only). */
const NFT_VERSION_TRIGGERS = ['nft', 'nft_collection', 'nft_holding'].map(
  (table) => `DROP TRIGGER nft_version_bump ON ${table}`,
);

async function run(sim: SimProcess, vm: 'move' | 'wasm' | 'evm', nftIndexing: boolean, nftTriggers: boolean) {
  const { db, url, dispose } = await createPostgresTestDb(baseUrl);
  try {
    if (!nftTriggers) for (const sql of NFT_VERSION_TRIGGERS) await db.query(sql);
    const service = await benchIngestService(sim, db, vm, { stages: { nftIndexing } });
    let txs = 0;
    const backends = await followBackends(url);
    await backends.begin();
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
    const postgresCpu = await backends.usedSeconds();
    await backends.close();
    const indexerCpu = (ownCpu.user + ownCpu.system) / 1e6;
    await service.close();
    const { rows } = await db.query<{ tokens: string; edges: string }>(
      `SELECT (SELECT count(*) FROM nft) AS tokens, (SELECT count(*) FROM tx_nfts) AS edges`,
    );
    return {
      bench: 'nft-ingest',
      vm,
      nftIndexing,
      nftVersionTriggers: nftTriggers,
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
      indexerCpuSeconds: Math.round(indexerCpu * 10) / 10,
      postgresCpuSeconds: Math.round(postgresCpu * 10) / 10,
      cpuUsPerBlock: {
        indexer: Math.round((indexerCpu * 1e6) / blocks),
        postgres: Math.round((postgresCpu * 1e6) / blocks),
        ingest: Math.round(((indexerCpu + postgresCpu) * 1e6) / blocks),
      },
      load1: Number(loadavg()[0]!.toFixed(2)),
      peakRssMb: peakRssMb(),
    };
  } finally {
    await dispose();
  }
}

const vms = values.vm === 'all' ? (['move', 'wasm', 'evm'] as const) : [values.vm as 'move' | 'wasm' | 'evm'];
const triggers = values['nft-triggers'];
if (!['on', 'off', 'both'].includes(triggers!)) throw new Error('--nft-triggers must be on, off or both');
// [NFT collection, triggers kept] per run.
const runs: [boolean, boolean][] =
  triggers === 'both'
    ? [
        [true, true],
        [true, false],
      ]
    : [
        [false, triggers === 'on'],
        [true, triggers === 'on'],
      ];
for (const vm of vms) {
  for (const [nft, kept] of runs) {
    // A fresh simulator per run, so both runs read an equally cold chain.
    const sim = await startBenchChain(vm, blocks, values.txs, ['--nft-share', nftShare]);
    try {
      console.log(JSON.stringify(await run(sim, vm, nft, kept)));
    } finally {
      await sim.stop();
    }
  }
}
