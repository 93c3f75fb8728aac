import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { NodeWaits } from '../shared/node-waits.js';

export interface IngestMetrics {
  height: Gauge;
  nodeHeight: Gauge;
  blocks: Counter;
  txs: Counter;
  writeSeconds: Histogram;
  queueDepth: Gauge<'kind'>;
  dbRetries: Counter;
  /** Whether commits reach the database (`rollup_indexer_db_available`), and since when they do not. */
  database: DatabaseAvailability;
  /** Per stage (internal_tx, rich_list): its checkpoint height, blocks behind the block stream, rows written. */
  stageHeight: Gauge<'stage'>;
  stageLag: Gauge<'stage'>;
  stageRows: Counter<'stage'>;
  /**
   * Makes a stage's lag read at scrape time (`lag()` = block-stream head − stage height), so it
   * grows while the stage is stuck; a later call for the same stage replaces the reading.
   */
  watchStageLag(stage: string, lag: () => number): void;
  /** Makes `rollup_indexer_node_wait_seconds{part}` read these waits at scrape time. */
  watchNodeWaits(waits: NodeWaits): void;
}

export interface DatabaseAvailability {
  /** The database failed a read or commit that is now waited out. */
  away(err: unknown): void;
  /** A commit succeeded. */
  back(): void;
  /** The first failure of the current outage (a deployment shows it as the chain's last error). */
  awaySince(): { message: string; since: Date } | undefined;
}

function databaseAvailability(gauge: Gauge): DatabaseAvailability {
  let away: { message: string; since: Date } | undefined;
  return {
    away(err) {
      gauge.set(0);
      const message = `database unavailable: ${err instanceof Error ? err.message : String(err)}`;
      away = { message, since: away?.since ?? new Date() };
    },
    back() {
      gauge.set(1);
      away = undefined;
    },
    awaySince: () => away,
  };
}

export function createIngestMetrics(registry: Registry): IngestMetrics {
  const lagReaders = new Map<string, () => number>();
  let waits: NodeWaits | undefined;
  new Gauge({
    name: 'rollup_indexer_node_wait_seconds',
    help: 'Seconds a part of ingest (block_stream, internal_tx_stage, rich_list_stage, start_up) has waited for the node; absent while it does not',
    labelNames: ['part'],
    registers: [registry],
    collect() {
      this.reset();
      const now = Date.now();
      for (const w of waits?.list() ?? [])
        this.set({ part: w.part.replace(/[ -]/g, '_') }, (now - w.since.getTime()) / 1000);
    },
  });
  return {
    height: new Gauge({
      name: 'rollup_indexer_height',
      help: 'Last committed height',
      registers: [registry],
    }),
    nodeHeight: new Gauge({
      name: 'rollup_indexer_node_height',
      help: 'Latest height the node has produced',
      registers: [registry],
    }),
    blocks: new Counter({
      name: 'rollup_indexer_blocks_total',
      help: 'Blocks committed',
      registers: [registry],
    }),
    txs: new Counter({
      name: 'rollup_indexer_txs_total',
      help: 'Cosmos txs committed',
      registers: [registry],
    }),
    writeSeconds: new Histogram({
      name: 'rollup_indexer_db_write_seconds',
      help: 'Duration of one commit (a batch of blocks)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'rollup_indexer_queue_depth',
      help: 'Blocks buffered and chunk requests in flight',
      labelNames: ['kind'],
      registers: [registry],
    }),
    dbRetries: new Counter({
      name: 'rollup_indexer_db_retries_total',
      help: 'Commits retried because the database was unavailable',
      registers: [registry],
    }),
    database: databaseAvailability(
      new Gauge({
        name: 'rollup_indexer_db_available',
        help: '1 while commits succeed, 0 while ingest waits for the database',
        registers: [registry],
      }),
    ),
    stageHeight: new Gauge({
      name: 'rollup_indexer_stage_height',
      help: 'Last height a stage (internal_tx, rich_list) has committed',
      labelNames: ['stage'],
      registers: [registry],
    }),
    stageLag: new Gauge({
      name: 'rollup_indexer_stage_lag_blocks',
      help: 'Blocks the stage is behind the block stream (read at scrape time)',
      labelNames: ['stage'],
      registers: [registry],
      collect() {
        for (const [stage, lag] of lagReaders) this.set({ stage }, lag());
      },
    }),
    stageRows: new Counter({
      name: 'rollup_indexer_stage_rows_total',
      help: 'Rows a stage has committed',
      labelNames: ['stage'],
      registers: [registry],
    }),
    watchStageLag: (stage, lag) => void lagReaders.set(stage, lag),
    watchNodeWaits: (watched) => void (waits = watched),
  };
}
