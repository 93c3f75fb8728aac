import type { ReaderContext } from './context.js';

/** What /ready needs: the database answers, and how long ago ingest last moved its checkpoint. */
export interface HealthReader {
  ping(): Promise<void>;
  /** Seconds since the 'blocks' checkpoint was updated; undefined when there is none. */
  checkpointAgeSeconds(): Promise<number | undefined>;
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
  };
}
