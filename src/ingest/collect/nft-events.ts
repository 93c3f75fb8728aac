import { createHash } from 'node:crypto';
import type { NftLookups } from '../../node/nft-lookups.js';
import type { AbciEvent, RawBlock } from '../../node/types.js';
import type { Logger } from '../../shared/logger.js';

/** One ABCI event of a block with its attributes as a map (the last value of a key wins, docs/ingest.md §7.0). */
export interface BlockEvent {
  type: string;
  attrs: Map<string, string>;
  /** All attributes in order (EVM logs repeat the `log` key). */
  raw: AbciEvent['attributes'];
  /** Index of the tx in the block, or null for PreBlock / BeginBlock / EndBlock events. */
  txIndex: number | null;
}

const modeOf = (e: AbciEvent): string | undefined => e.attributes.find((a) => a.key === 'mode')?.value;

/**
 * A block's events in chain order (docs/ingest.md §7.0): PreBlock and BeginBlock, then every tx in order, then
 * EndBlock. The `mode` attribute may sit anywhere in a finalize-block event (docs/ingest.md §0.5).
 */
export function blockEvents(raw: RawBlock): BlockEvent[] {
  const toEvent = (e: AbciEvent, txIndex: number | null): BlockEvent => ({
    type: e.type,
    attrs: new Map(e.attributes.map((a) => [a.key, a.value])),
    raw: e.attributes,
    txIndex,
  });
  const end = raw.finalizeBlockEvents.filter((e) => modeOf(e) === 'EndBlock');
  const begin = raw.finalizeBlockEvents.filter((e) => modeOf(e) !== 'EndBlock');
  return [
    ...begin.map((e) => toEvent(e, null)),
    ...raw.txResults.flatMap((r, i) => r.events.map((e) => toEvent(e, i))),
    ...end.map((e) => toEvent(e, null)),
  ];
}

const CHANNEL_RE = /^channel-\d+$/;

/**
 * The L2 collection name an IBC nft-transfer receipt creates (docs/ingest.md §7.4). Wasm names the class by its
 * full path; Move and EVM by `ibc/` + upper-case hex SHA-256 of the full path when the path holds
 * at least one (port, channel-N) pair, else by the base class id.
 */
export function l2ClassName(
  vm: 'move' | 'wasm' | 'evm',
  dstPort: string,
  dstChannel: string,
  classId: string,
): string {
  const fullPath = `${dstPort}/${dstChannel}/${classId}`;
  if (vm === 'wasm') return fullPath;
  const parts = fullPath.split('/');
  let i = 0;
  while (i + 1 < parts.length && CHANNEL_RE.test(parts[i + 1]!)) i += 2;
  if (i === 0) return parts.join('/');
  return 'ibc/' + createHash('sha256').update(fullPath).digest('hex').toUpperCase();
}

/**
 * (l2Name → l1Name) pairs of the block's IBC NFT receipts, in order. A receipt whose packet data
 * cannot be read is left out (it names no class we could match) rather than stopping ingest on a
 * height that would fail again on every restart.
 */
export function originNames(
  vm: 'move' | 'wasm' | 'evm',
  events: readonly BlockEvent[],
): Array<{ l2Name: string; l1Name: string }> {
  const out: Array<{ l2Name: string; l1Name: string }> = [];
  for (const e of events) {
    if (e.type !== 'recv_packet') continue;
    const a = e.attrs;
    const dstPort = a.get('packet_dst_port');
    const dstChannel = a.get('packet_dst_channel');
    const data = a.get('packet_data');
    if (a.get('packet_src_port') !== 'nft-transfer' || !dstPort || !dstChannel || !data) continue;
    const pair = readClassPair(data);
    if (pair) out.push({ l2Name: l2ClassName(vm, dstPort, dstChannel, pair.classId), l1Name: pair.l1Name });
  }
  return out;
}

function readClassPair(packetData: string): { classId: string; l1Name: string } | undefined {
  try {
    const packet = JSON.parse(packetData) as { classId?: unknown; classData?: unknown };
    if (typeof packet.classId !== 'string' || typeof packet.classData !== 'string') return undefined;
    const classData = JSON.parse(Buffer.from(packet.classData, 'base64').toString('utf8')) as {
      name?: unknown;
    };
    return { classId: packet.classId, l1Name: typeof classData.name === 'string' ? classData.name : '' };
  } catch {
    return undefined;
  }
}

/** NUL characters never reach the database (PostgreSQL text rejects them; docs/ingest.md §7.0 strips them). */
export const stripNul = (s: string): string => s.replaceAll('\u0000', '');

/** A Move address (short or full hex, with 0x) as 32 bytes. */
export function moveAddressBytes(hex: string): Uint8Array {
  const digits = hex.replace(/^0x/i, '').toLowerCase();
  if (!/^[0-9a-f]{1,64}$/.test(digits)) throw new Error(`not a Move address: ${hex}`);
  return Buffer.from(digits.padStart(64, '0'), 'hex');
}

/** Context every NFT collector takes; the logger reports events skipped as unreadable chain data. */
export interface NftCollectContext {
  prefix: string;
  lookups: NftLookups;
  logger?: Logger;
}

/**
 * Reports an event left out because chain data in it cannot be read (a contract wrote it; the
 * block is final and will read the same on every restart, so stopping would halt ingest forever).
 */
export function logSkippedEvent(
  ctx: Pick<NftCollectContext, 'logger'>,
  raw: RawBlock,
  event: Pick<BlockEvent, 'txIndex'>,
  fields: { contract: string; reason: string; [key: string]: unknown },
): void {
  const tx = event.txIndex === null ? null : txHashOf(raw, event.txIndex);
  ctx.logger?.warn({ height: raw.height, tx, ...fields }, 'NFT event skipped: unreadable chain data');
}

/** Upper-case hex SHA-256 of a tx's bytes (its CometBFT hash); undefined when the index has no tx. */
function txHashOf(raw: RawBlock, txIndex: number): string | undefined {
  const tx = raw.txs[txIndex];
  return tx === undefined
    ? undefined
    : createHash('sha256').update(Buffer.from(tx, 'base64')).digest('hex').toUpperCase();
}
