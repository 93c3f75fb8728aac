import type { Queryable } from '../driver/db.js';

/** Heights and times of the indexed block range, and stage checkpoints, for VIP score windows. */

export interface IndexedRange {
  /** Lowest stored block height (undefined when nothing is stored). */
  lowest: number | undefined;
  /** The block stream's checkpoint height (0 when nothing is indexed). */
  checkpoint: number;
}

export async function indexedRange(db: Queryable): Promise<IndexedRange> {
  const { rows } = await db.query<{ lowest: number | null; checkpoint: number | null }>(
    `SELECT (SELECT min(height) FROM block) AS lowest,
            (SELECT height FROM checkpoint WHERE stream = 'blocks') AS checkpoint`,
  );
  const r = rows[0];
  return {
    lowest: r?.lowest === null || r?.lowest === undefined ? undefined : Number(r.lowest),
    checkpoint: Number(r?.checkpoint ?? 0),
  };
}

/** Checkpoint height of a stage stream (undefined when the stage never ran). */
export async function streamHeight(db: Queryable, stream: string): Promise<number | undefined> {
  const { rows } = await db.query<{ height: number }>('SELECT height FROM checkpoint WHERE stream = $1', [
    stream,
  ]);
  return rows[0] ? Number(rows[0].height) : undefined;
}

/** Block time in microseconds since the epoch (exact: timestamptz keeps microseconds). */
export async function blockTimeUs(db: Queryable, height: number): Promise<bigint | undefined> {
  const { rows } = await db.query<{ us: string }>(
    `SELECT (extract(epoch FROM "timestamp") * 1000000)::bigint::text AS us FROM block WHERE height = $1`,
    [height],
  );
  return rows[0] ? BigInt(rows[0].us) : undefined;
}

/** RFC 3339 (UTC, microseconds) of a block's time, as stored. */
export async function blockTimeText(db: Queryable, height: number): Promise<string | undefined> {
  const { rows } = await db.query<{ t: string }>(
    `SELECT to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t FROM block WHERE height = $1`,
    [height],
  );
  return rows[0]?.t;
}

/**
 * The lowest height in [lo, hi] whose block time is >= timeUs, found by binary search over the
 * primary key (CometBFT block times strictly increase with height, so no timestamp index is
 * needed); undefined when no block in the range qualifies.
 */
export async function firstHeightAtOrAfter(
  db: Queryable,
  lo: number,
  hi: number,
  timeUs: bigint,
): Promise<number | undefined> {
  let answer: number | undefined;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const t = await blockTimeUs(db, mid);
    if (t === undefined) return undefined;
    if (t >= timeUs) {
      answer = mid;
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return answer;
}
