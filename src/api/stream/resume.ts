import { InputError } from '../../shared/errors.js';
import type { BlockReader } from '../../store/readers/blocks.js';
import { atoi } from '../pagination.js';
import type { ReplayFilter, StreamReader, TxFamily } from '../../store/readers/stream.js';
import {
  blockEvents,
  txEvents,
  type StreamEvent,
  type StreamFilter,
  type StreamRoute,
} from './subscriber.js';

/** Where a client asked to start (docs/stream.md §2); the header wins, then the query. */
export type ResumePoint =
  { kind: 'live' } | { kind: 'after'; id: number } | { kind: 'fromHeight'; height: number };

export function parseResumePoint(
  header: string | undefined,
  query: Readonly<Record<string, unknown>>,
): ResumePoint {
  if (header !== undefined) return { kind: 'after', id: parseId(header, 'Last-Event-ID header') };
  const lastEventId = query.last_event_id;
  if (typeof lastEventId === 'string') return { kind: 'after', id: parseId(lastEventId, 'last_event_id') };
  const fromHeight = query.from_height;
  if (typeof fromHeight === 'string') {
    const height = atoi(fromHeight);
    if (height === undefined || height < 1n || height > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new InputError('invalid_from_height', `from_height must be a height ≥ 1, got "${fromHeight}"`);
    }
    return { kind: 'fromHeight', height: Number(height) };
  }
  return { kind: 'live' };
}

function parseId(text: string, name: string): number {
  const id = atoi(text.trim());
  if (id === undefined || id < 0n || id > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new InputError(
      'invalid_last_event_id',
      `${name} must be an event id (an integer ≥ 0), got "${text}"`,
    );
  }
  return Number(id);
}

/** The stored backlog a resuming subscriber gets before it goes live. */
export interface Backlog {
  /** Events after `after`, up to the hub's delivered position, in order, in chunks. */
  read(): AsyncGenerator<StreamEvent[]>;
  /** How many items, counted up to maxItems + 1 (which means "more than the bound"). */
  size: number;
  /** The id the subscriber has everything up to before its backlog. */
  after: number;
  /** Nothing below this height is sent. */
  minHeight: number;
}

const READ_CHUNK = 500;

/**
 * Plans the replay from `resume` up to `delivered` (the hub's position when the subscriber was
 * registered): counts it first, bounded by `maxItems + 1`, so a resume point too far back is
 * refused before the stream opens, and reads it in chunks afterwards.
 */
export async function planBacklog(
  ctx: { reader: StreamReader; blocks: BlockReader; chainId: string },
  req: { route: StreamRoute; filter: StreamFilter; resume: ResumePoint; delivered: number; maxItems: number },
): Promise<Backlog> {
  const { resume, delivered } = req;
  const minHeight = resume.kind === 'fromHeight' ? resume.height : 0;
  if (req.route === 'blocks') {
    let after = delivered;
    if (resume.kind === 'after') after = resume.id;
    if (resume.kind === 'fromHeight') after = resume.height - 1;
    const size = Math.min(Math.max(0, delivered - after), req.maxItems + 1);
    return { after, minHeight, size, read: () => readBlocks(ctx, after, delivered) };
  }
  const family: TxFamily = req.route === 'txs' ? 'tx' : 'evm_tx';
  let after = delivered;
  if (resume.kind === 'after') after = resume.id;
  if (resume.kind === 'fromHeight') {
    const first = await ctx.reader.firstSequenceFrom(family, resume.height);
    after = first === undefined ? delivered : first - 1;
  }
  if (after >= delivered) return { after, minHeight, size: 0, read: async function* () {} };
  const filter = await resolveFilter(ctx.reader, req.filter);
  const sequences =
    filter === undefined
      ? []
      : await ctx.reader.replaySequences(family, filter, after, delivered, req.maxItems + 1);
  return { after, minHeight, size: sequences.length, read: () => readRows(ctx.reader, family, sequences) };
}

/** Ids of the filter's account and types; undefined when they name nothing stored yet. */
async function resolveFilter(reader: StreamReader, filter: StreamFilter): Promise<ReplayFilter | undefined> {
  const resolved: ReplayFilter = { signerOnly: filter.signerOnly };
  if (filter.accountHex !== undefined) {
    const ids = await reader.accountIds([Buffer.from(filter.accountHex, 'hex')]);
    const id = ids.get(filter.accountHex);
    if (id === undefined) return undefined;
    resolved.accountId = id;
  }
  if (filter.msgNames !== undefined) {
    const ids = await reader.msgTypeIds([...filter.msgNames]);
    if (ids.size === 0) return undefined;
    resolved.msgTypeIds = [...ids.values()].sort((a, b) => a - b);
  }
  return resolved;
}

async function* readBlocks(
  ctx: { blocks: BlockReader; chainId: string },
  after: number,
  upto: number,
): AsyncGenerator<StreamEvent[]> {
  for (let at = after; at < upto;) {
    const rows = await ctx.blocks.range(at, upto, READ_CHUNK);
    if (rows.length === 0) return;
    yield blockEvents(rows, ctx.chainId);
    at = rows.at(-1)!.height;
  }
}

async function* readRows(reader: StreamReader, family: TxFamily, sequences: readonly number[]) {
  for (let i = 0; i < sequences.length; i += READ_CHUNK) {
    const rows = await reader.rowsAt(family, sequences.slice(i, i + READ_CHUNK));
    yield txEvents(rows);
  }
}
