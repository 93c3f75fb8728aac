import type { Db, Queryable } from '../driver/db.js';
import { loadDerivationCheckpoint, type DerivationCheckpoint } from './derivation-checkpoint.js';
import { bumpStoreGeneration } from './store-generation.js';

/**
 * `reindex --stage` (docs/ingest.md §11.4): a stage's rows rebuilt from its start in a schema of
 * their own beside the served ones, then swapped in, with the stage's checkpoint, in one
 * transaction. The stage's code runs unchanged on the rebuild: its transactions put the rebuild's
 * schema first on `search_path`, where the stage's tables and a `checkpoint` table of its own
 * shadow the served ones; every other table (blocks, txs, the account dictionary) is the served one.
 */

/** Every table a stage writes, besides its checkpoint row (its `checkpoint.stream` is its name). */
export const STAGE_TABLES = {
  internal_tx: ['evm_internal_tx', 'evm_internal_tx_accounts', 'evm_internal_tx_account_counts'],
  rich_list: ['rich_list', 'rich_list_holders', 'rich_list_denom'],
} as const satisfies Record<string, readonly string[]>;

/** The derivation stages (src/ingest/derive/registry.ts), by checkpoint stream name. */
export type StageName = keyof typeof STAGE_TABLES;

export const STAGE_NAMES = Object.keys(STAGE_TABLES) as StageName[];

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export interface StageRebuild {
  stage: StageName;
  /** The schema of the served tables. */
  live: string;
  /** The rebuild's schema (kept across runs until the swap or `--abandon`). */
  shadow: string;
  /** The database as the stage sees it while rebuilding. */
  db: Db;
  /** The rebuild's checkpoint, undefined before its first commit. */
  checkpoint(): Promise<DerivationCheckpoint | undefined>;
}

/** The rebuild's schema name for a stage in the served schema `live`. */
function shadowOf(live: string, stage: StageName): string {
  return `${live}_reindex_${stage}`;
}

async function liveSchema(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ schema: string }>('SELECT current_schema() AS schema');
  return rows[0]!.schema;
}

/** Creates the rebuild's schema and empty tables, or opens the ones a killed run left. */
export async function openStageRebuild(db: Db, stage: StageName): Promise<StageRebuild> {
  const live = await liveSchema(db);
  const shadow = shadowOf(live, stage);
  await db.transaction(async (tx) => {
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quote(shadow)}`);
    for (const table of [...STAGE_TABLES[stage], 'checkpoint'])
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${quote(shadow)}.${quote(table)} (LIKE ${quote(live)}.${quote(table)} INCLUDING ALL)`,
      );
  });
  const path = `SET LOCAL search_path TO ${quote(shadow)}, ${quote(live)}`;
  const transaction: Db['transaction'] = (fn) =>
    db.transaction(async (tx) => {
      await tx.query(path);
      return fn(tx);
    });
  const shadowDb: Db = {
    kind: db.kind,
    transaction,
    query: (sql, params) => transaction((tx) => tx.query(sql, params)),
    exec: (sql) => transaction((tx) => tx.exec(sql)),
    close: () => db.close(),
  };
  return {
    stage,
    live,
    shadow,
    db: shadowDb,
    checkpoint: () => loadDerivationCheckpoint(shadowDb, stage),
  };
}

/**
 * Swaps the rebuilt rows in, when the rebuild stands where the served stage does: in one
 * transaction the served checkpoint row is locked (a running stage's next batch locks it first too,
 * so it waits, then continues from the swapped rows and sequence), every served row of the stage
 * is replaced by the rebuild's, the checkpoint takes the rebuild's sequence, `store_generation` is
 * bumped (docs/api.md §1.9), the job row and the rebuild's schema go. Returns the served height
 * instead, doing nothing, when the stage has moved past the rebuild meanwhile.
 */
export async function swapStageRebuild(
  db: Db,
  rebuild: StageRebuild,
  job: string,
): Promise<{ swapped: true; height: number; rows: number } | { swapped: false; height: number }> {
  const { stage, live, shadow } = rebuild;
  return db.transaction(async (tx) => {
    const served = await tx.query<{ height: number }>(
      `SELECT height FROM ${quote(live)}.checkpoint WHERE stream = $1 FOR UPDATE`,
      [stage],
    );
    const built = await tx.query<{ height: number; tx_sequence: number }>(
      `SELECT height, tx_sequence FROM ${quote(shadow)}.checkpoint WHERE stream = $1`,
      [stage],
    );
    const height = Number(served.rows[0]?.height ?? 0);
    const at = built.rows[0];
    if (!at || Number(at.height) !== height) return { swapped: false, height };
    let rows = 0;
    for (const table of STAGE_TABLES[stage]) {
      await tx.query(`DELETE FROM ${quote(live)}.${quote(table)}`);
      const copied = await tx.query<{ n: number }>(
        `WITH moved AS (INSERT INTO ${quote(live)}.${quote(table)} SELECT * FROM ${quote(shadow)}.${quote(table)} RETURNING 1)
         SELECT count(*)::int AS n FROM moved`,
      );
      rows += Number(copied.rows[0]!.n);
    }
    await tx.query(
      `UPDATE ${quote(live)}.checkpoint SET tx_sequence = $2, updated_at = now() WHERE stream = $1`,
      [stage, at.tx_sequence],
    );
    await bumpStoreGeneration(tx);
    await tx.query('DELETE FROM reindex_job WHERE job = $1', [job]);
    await tx.query(`DROP SCHEMA ${quote(shadow)} CASCADE`);
    return { swapped: true, height, rows };
  });
}

/** Drops an unfinished rebuild: its schema and job row (the served rows were never touched). */
export async function dropStageRebuild(db: Db, stage: StageName, job: string): Promise<boolean> {
  const shadow = shadowOf(await liveSchema(db), stage);
  return db.transaction(async (tx) => {
    await tx.query(`DROP SCHEMA IF EXISTS ${quote(shadow)} CASCADE`);
    const { rows } = await tx.query('DELETE FROM reindex_job WHERE job = $1 RETURNING job', [job]);
    return rows.length > 0;
  });
}
