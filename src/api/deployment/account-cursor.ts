import { InputError } from '../../shared/errors.js';

/**
 * The snapshot cursor of an account walk across chains (docs/chains.md §4.1): for every chain of
 * the walk, its committed tx sequence fixed by the first page, its position (the last sequence
 * served, absent before its first item) and whether it was unavailable (then it is left out of
 * the rest of the walk). Opaque to clients: base64 of a compact JSON object.
 */
export interface ChainPosition {
  /** Snapshot: the chain's highest committed sequence when the walk began. */
  snapshot: number;
  /** Last sequence served from this chain (exclusive bound of the next page). */
  after?: number;
  unavailable?: boolean;
}

export interface AccountWalkCursor {
  /** Newest first (the default, `pagination.reverse=true`). */
  desc: boolean;
  chains: Map<string, ChainPosition>;
}

interface WireCursor {
  v: 1;
  d: 0 | 1;
  c: [string, number, number | null, 0 | 1][];
}

const badKey = () =>
  new InputError('invalid_pagination', 'pagination.key is not a key this route handed out');

export function encodeWalkCursor(cursor: AccountWalkCursor): string {
  const wire: WireCursor = {
    v: 1,
    d: cursor.desc ? 1 : 0,
    c: [...cursor.chains].map(([id, p]) => [id, p.snapshot, p.after ?? null, p.unavailable ? 1 : 0]),
  };
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64');
}

const isSeq = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Decodes a key this route handed out; anything else is a 400 naming `pagination.key`. */
export function decodeWalkCursor(key: string): AccountWalkCursor {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) throw badKey();
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(key, 'base64').toString('utf8'));
  } catch {
    throw badKey();
  }
  const w = wire as Partial<WireCursor> | null;
  if (!w || w.v !== 1 || (w.d !== 0 && w.d !== 1) || !Array.isArray(w.c)) throw badKey();
  const chains = new Map<string, ChainPosition>();
  for (const entry of w.c) {
    if (!Array.isArray(entry) || entry.length !== 4) throw badKey();
    const [id, snapshot, after, unavailable] = entry as unknown[];
    if (typeof id !== 'string' || !isSeq(snapshot) || (after !== null && !isSeq(after))) throw badKey();
    if (unavailable !== 0 && unavailable !== 1) throw badKey();
    chains.set(id, {
      snapshot,
      ...(after === null ? {} : { after }),
      ...(unavailable === 1 ? { unavailable: true } : {}),
    });
  }
  return { desc: w.d === 1, chains };
}
