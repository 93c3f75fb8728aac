import type { ReaderContext } from './context.js';

/** What /ready needs: the database answers, and how long ago ingest last moved its checkpoint. */
export interface HealthReader {
  ping(): Promise<void>;
  /** Seconds since the 'blocks' checkpoint was updated; undefined when there is none. */
  checkpointAgeSeconds(): Promise<number | undefined>;
  /**
   * On a streaming replica: seconds its replay is behind (0 once it has replayed all it received);
   * undefined on a primary.
   */
  replicaLagSeconds(): Promise<number | undefined>;
}

export function createHealthReader(ctx: ReaderContext): HealthReader {
  return {
    async ping() {
      await ctx.db.query('SELECT 1');
    },
    async checkpointAgeSeconds() {
      const { rows } = await ctx.db.query<{ age: number | null }>(
        "SELECT extract(epoch FROM now() - updated_at)::float8 AS age FROM checkpoint WHERE stream = 'blocks'",
      );
      const age = rows[0]?.age;
      return age === null || age === undefined ? undefined : age;
    },
    async replicaLagSeconds() {
      const { rows } = await ctx.db.query<{ replica: boolean; lag: number | null }>(
        `SELECT pg_is_in_recovery() AS replica,
                CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                     ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END AS lag`,
      );
      const row = rows[0];
      return row?.replica ? Math.max(0, row.lag ?? 0) : undefined;
    },
  };
}
