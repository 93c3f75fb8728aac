/**
 * The bulk builder of bench/scale/bulk.ts (see its header): the scale chain's rows as the indexer
 * would store them, prepared by the ingest's own prepare workers and written in large batches by
 * COPY, through the block writer's own row shaping and set-based statements for the kept counts.
 */
import pg from 'pg';
import { createPostgresDb, type Queryable } from '../../src/store/driver/db.js';
import { millisBetween } from '../../src/ingest/time.js';
import { addAccountCounts } from '../../src/store/writers/account-edges.js';
import {
  createBlockWriter,
  createWriterDictionaries,
  internBatch,
  upsertValidators,
} from '../../src/store/writers/block-writer.js';
import {
  accountEdges,
  BLOCK_COLUMNS,
  blockRowValues,
  msgTypeEdges,
  nftInputs,
  txTextColumn,
  type TxRowInput,
} from '../../src/store/writers/tx-rows.js';
import { asBuffer } from '../../src/store/writers/dictionary.js';
import { writeNftBlocks } from '../../src/store/writers/nft-writer.js';
import type { BlockRows, Checkpoint } from '../../src/store/writers/rows.js';
import { sqlArray } from '../../src/store/writers/sql-array.js';
import { addTypeSetCounts } from '../../src/store/writers/type-set-counts.js';
import { startSimProcess } from '../lib/harness.js';
import { cpuSeconds } from '../lib/http-load.js';
import { assertDiskRoom, round, scaleIngestService, simArgs } from './build.js';
import { createBulkPreparers, simFlagsOf, type PreparedBlock } from './bulk-prepare.js';
import { CopyRows, copyIn } from './copy-in.js';
import { buildDeferredIndexes, deferIndexes } from './deferred-indexes.js';
import { threadCpuSeconds } from './thread-cpu.js';

export interface BulkRun {
  fromHeight: number;
  toHeight: number;
  blocks: number;
  txs: number;
  seconds: number;
  txsPerSec: number;
  /**
   * CPU seconds per 1,000 blocks: this whole process (`bulk`: the workers with their in-process
   * simulators, the writing thread, V8's helper threads), of it the writing thread (`writer`) and
   * the workers' threads (`workers`), and the PostgreSQL backend.
   */
  cpuSecPer1000Blocks: { bulk: number; writer: number; workers: number; postgres: number };
  /**
   * The deferred indexes built after the load (deferred-indexes.ts): wall seconds (what counts in a
   * build's time; PostgreSQL may use parallel workers) and the CPU seconds of the backend.
   */
  indexBuild?: { seconds: number; postgresCpuSeconds: number };
  stoppedForDisk?: string;
  /** Stopped by the signal (Ctrl-C) before `toHeight`. */
  interrupted?: boolean;
}

/** Builds from the database's checkpoint up to `toHeight`; the database must be migrated. */
export async function bulkBuild(o: {
  url: string;
  toHeight: number;
  workers: number;
  batchBlocks: number;
  /** Drop the per-tx tables' indexes during the load and build them at the end (deferred-indexes.ts). */
  deferIndexes: boolean;
  log: (message: string) => void;
  /** Aborted: the build stops after the batch being written (the checkpoint is consistent). */
  signal?: AbortSignal;
}): Promise<BulkRun> {
  const db = createPostgresDb({ url: o.url, maxConnections: 2 });
  const client = new pg.Client({ connectionString: o.url });
  try {
    // The real service wires the chain (chain_meta, the checkpoint row) and, on a resume, checks
    // the checkpoint block's hash against a simulator process's: a bulk resume is held to the same
    // rule. The blocks themselves come from the workers' in-process simulators.
    const sim = await startSimProcess(simArgs(o.toHeight));
    const chain = await scaleIngestService(sim, db)
      .then(async (service) => {
        await service.close();
        return service.chain;
      })
      .finally(() => sim.stop());
    const start = (await createBlockWriter(db)).checkpoint();
    await client.connect();
    await client.query('SET synchronous_commit = off');
    const backendPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const preparer = createBulkPreparers(o.workers, {
      simFlags: simFlagsOf(simArgs(o.toHeight)),
      vm: chain.vmType,
      chainId: chain.chainId,
      accountPrefix: 'init',
    });
    if (o.deferIndexes) await deferIndexes(client);
    const writer = createBulkWriter(client, start);
    let stoppedForDisk: string | undefined;
    try {
      await preparer.ready;
      const began = {
        at: performance.now(),
        cpu: process.cpuUsage(),
        writer: threadCpuSeconds(),
        workers: preparer.cpuSeconds(),
        pg: await cpuSeconds(backendPid),
      };
      stoppedForDisk = await pump(o, preparer, writer, start);
      const seconds = (performance.now() - began.at) / 1000;
      const cpu = process.cpuUsage(began.cpu);
      const used = {
        bulk: (cpu.user + cpu.system) / 1e6,
        writer: threadCpuSeconds() - began.writer,
        workers: preparer.cpuSeconds() - began.workers,
        pg: (await cpuSeconds(backendPid)) - began.pg,
      };
      const end = writer.checkpoint();
      const blocks = end.height - start.height;
      const txs = end.txSequence - start.txSequence;
      const per1000 = (sec: number) => (blocks > 0 ? round((sec / blocks) * 1000) : 0);
      o.log('building the deferred indexes ...');
      const indexSeconds = await buildDeferredIndexes(client, o.log);
      const indexCpu = (await cpuSeconds(backendPid)) - began.pg - used.pg;
      return {
        fromHeight: start.height,
        toHeight: end.height,
        blocks,
        txs,
        seconds: round(seconds),
        txsPerSec: Math.round(txs / seconds),
        cpuSecPer1000Blocks: {
          bulk: per1000(used.bulk),
          writer: per1000(used.writer),
          workers: per1000(used.workers),
          postgres: per1000(used.pg),
        },
        ...(indexSeconds > 0
          ? { indexBuild: { seconds: round(indexSeconds), postgresCpuSeconds: round(indexCpu) } }
          : {}),
        ...(stoppedForDisk ? { stoppedForDisk } : {}),
        ...(o.signal?.aborted ? { interrupted: true } : {}),
      };
    } finally {
      await preparer.close();
    }
  } finally {
    await client.end().catch(() => undefined);
    await db.close();
  }
}

/** Heights per prepare request and requests kept in flight. */
const CHUNK = 20;
const CHUNKS_IN_FLIGHT = 8;

/**
 * Chunks of heights to the workers in order, their blocks in batches to the writer (one batch
 * written while the next is prepared); returns why it stopped early (free disk), if it did.
 */
async function pump(
  o: { toHeight: number; batchBlocks: number; log: (message: string) => void; signal?: AbortSignal },
  preparer: ReturnType<typeof createBulkPreparers>,
  writer: ReturnType<typeof createBulkWriter>,
  start: Checkpoint,
): Promise<string | undefined> {
  const began = performance.now();
  let nextChunk = start.height + 1;
  const queue: Promise<(PreparedBlock | undefined)[]>[] = [];
  let batch: PreparedBlock[] = [];
  let writing: Promise<void> = Promise.resolve();
  let lastLog = Date.now();
  let lastDiskCheck = Date.now();
  for (;;) {
    while (queue.length < CHUNKS_IN_FLIGHT && nextChunk <= o.toHeight) {
      const length = Math.min(CHUNK, o.toHeight - nextChunk + 1);
      const pending = preparer.prepare(Array.from({ length }, (_, i) => nextChunk + i));
      nextChunk += length;
      pending.catch(() => undefined); // awaited in order below
      queue.push(pending);
    }
    const chunk = queue.shift();
    if (chunk) {
      for (const block of await chunk) {
        if (block === undefined) throw new Error('the simulator did not serve a height below its head');
        batch.push(block);
      }
    }
    if (batch.length >= o.batchBlocks || (chunk === undefined && batch.length > 0)) {
      await writing;
      writing = writer.write(batch);
      writing.catch(() => undefined); // awaited before the next batch
      batch = [];
      if (Date.now() - lastDiskCheck > 10_000) {
        lastDiskCheck = Date.now();
        const stopped = await assertDiskRoom('bulk build').then(
          () => undefined,
          (err: Error) => err.message,
        );
        if (stopped) {
          await writing;
          return stopped;
        }
      }
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        const done = writer.checkpoint();
        const rate = (done.txSequence - start.txSequence) / ((performance.now() - began) / 1000);
        o.log(`height ${done.height} / ${o.toHeight}, ${done.txSequence} txs, ${Math.round(rate)} txs/s`);
      }
    }
    if (chunk === undefined || o.signal?.aborted) break;
  }
  await writing;
  return undefined;
}

/**
 * The block writer's transaction with its large INSERTs replaced by COPY: the same rows in the same
 * order (blocks, txs with their edges and counts, EVM txs, NFTs, monikers, the checkpoint), shaped
 * by the writer's own functions, with the dictionaries interned by the writer's own statements.
 */
function createBulkWriter(client: pg.Client, start: Checkpoint) {
  let current = start;
  const dicts = createWriterDictionaries(10_000_000);
  const tx: Queryable = {
    async query<Row>(sql: string, params?: readonly unknown[]) {
      const result = await client.query(sql, params as unknown[] | undefined);
      return { rows: result.rows as Row[] };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
  let previousTime = start.blockTimestamp;

  async function writeRows(blocks: BlockRows[]): Promise<Checkpoint> {
    const { allTxs, allEvm, idOf, msgTypeIds } = await internBatch(tx, blocks, dicts);

    const block = new CopyRows('block', [...BLOCK_COLUMNS]);
    for (const { block: b } of blocks) block.add(...blockRowValues(b));
    await copyIn(client, block);

    const txSeqs = allTxs.map((_, i) => current.txSequence + 1 + i);
    await copySequenced(client, 'tx', allTxs, txSeqs, idOf);
    const undecoded = new CopyRows('undecoded_tx', ['sequence', 'raw']);
    allTxs.forEach((t, i) => t.undecodedRaw && undecoded.add(txSeqs[i]!, t.undecodedRaw));
    await copyIn(client, undecoded);
    const edges = accountEdges(allTxs, txSeqs, idOf);
    await copyEdges(client, 'tx_accounts', edges);
    await addAccountCounts(tx, 'tx_account_counts', edges);
    const { typeEdges, cross } = msgTypeEdges(allTxs, txSeqs, msgTypeIds, edges);
    const types = new CopyRows('tx_msg_types', ['msg_type_id', 'sequence']);
    typeEdges.typeIds.forEach((id, i) => types.add(id, typeEdges.seqs[i]!));
    await copyIn(client, types);
    await addTypeSetCounts(
      tx,
      { typeIds: sqlArray(typeEdges.typeIds), seqs: sqlArray(typeEdges.seqs) },
      edges,
    );
    const crossRows = new CopyRows('tx_account_msg_types', [
      'account_id',
      'msg_type_id',
      'sequence',
      'signer',
    ]);
    cross.accounts.forEach((a, i) => crossRows.add(a, cross.types[i]!, cross.seqs[i]!, cross.signer[i]!));
    await copyIn(client, crossRows);

    const evmSeqs = allEvm.map((_, i) => current.evmSequence + 1 + i);
    await copySequenced(client, 'evm_tx', allEvm, evmSeqs, idOf);
    const evmEdges = accountEdges(allEvm, evmSeqs, idOf);
    await copyEdges(client, 'evm_tx_accounts', evmEdges);
    await addAccountCounts(tx, 'evm_tx_account_counts', evmEdges);

    await writeNftBlocks(tx, nftInputs(blocks, current.txSequence), idOf);
    await upsertValidators(tx, blocks);
    const last = blocks[blocks.length - 1]!.block;
    const next = {
      height: last.height,
      blockHash: last.hash,
      txSequence: current.txSequence + allTxs.length,
      evmSequence: current.evmSequence + allEvm.length,
      blockTimestamp: last.timestamp,
    };
    const { rowCount } = await client.query(
      `UPDATE checkpoint SET height = $2, block_hash = $3, tx_sequence = $4, evm_sequence = $5, updated_at = now()
        WHERE stream = 'blocks' AND height = $1`,
      [current.height, next.height, asBuffer(next.blockHash), next.txSequence, next.evmSequence],
    );
    if (rowCount !== 1)
      throw new Error(`checkpoint moved under the bulk builder (expected ${current.height})`);
    return next;
  }

  return {
    checkpoint: () => current,
    async write(prepared: PreparedBlock[]): Promise<void> {
      // block_time as the pipeline computes it: from the previous block's time.
      const blocks = prepared.map((b) => {
        const blockTimeMs = previousTime === null ? 0 : millisBetween(previousTime, b.time);
        previousTime = b.time;
        return { ...b, block: { ...b.block, blockTimeMs } } satisfies BlockRows;
      });
      if (blocks[0]!.block.height !== current.height + 1) {
        throw new Error(`bulk write expected height ${current.height + 1}, got ${blocks[0]!.block.height}`);
      }
      await client.query('BEGIN');
      try {
        const next = await writeRows(blocks);
        await client.query('COMMIT');
        dicts.accounts.commit();
        dicts.msgTypes.commit();
        current = next;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        dicts.accounts.discard();
        dicts.msgTypes.discard();
        throw err;
      }
    },
  };
}

async function copySequenced(
  client: pg.Client,
  table: 'tx' | 'evm_tx',
  rows: readonly TxRowInput[],
  seqs: readonly number[],
  idOf: (bytes: Uint8Array) => number,
): Promise<void> {
  const text = txTextColumn(table);
  const copy = new CopyRows(table, ['sequence', 'hash', 'height', 'signer_id', text.column]);
  rows.forEach((r, i) => copy.add(seqs[i]!, r.hash, r.height, idOf(r.signer), text.value(r)));
  await copyIn(client, copy);
}

async function copyEdges(
  client: pg.Client,
  table: 'tx_accounts' | 'evm_tx_accounts',
  edges: ReturnType<typeof accountEdges>,
): Promise<void> {
  const copy = new CopyRows(table, ['account_id', 'sequence', 'signer']);
  edges.accountIds.forEach((a, i) => copy.add(a, edges.sequences[i]!, edges.signer[i]!));
  await copyIn(client, copy);
}
