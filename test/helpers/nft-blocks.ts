import { pino } from 'pino';
import type { NftLookups } from '../../src/node/nft-lookups.js';
import type { AbciEvent, RawBlock } from '../../src/node/types.js';
import type { Logger } from '../../src/shared/logger.js';

/** An ABCI event from `[key, value]` pairs, in order. */
export const abciEvent = (type: string, attrs: ReadonlyArray<readonly [string, string]>): AbciEvent => ({
  type,
  attributes: attrs.map(([key, value]) => ({ key, value, index: true })),
});

/** A block whose tx i emits `txEvents[i]` (tx bytes are placeholders: only their hash is ever read). */
export function blockOf(height: number, txEvents: AbciEvent[][]): RawBlock {
  return {
    height,
    chainId: 'test-1',
    hash: 'AB'.repeat(32),
    time: '2026-01-01T00:00:00.000000001Z',
    proposerAddress: 'CD'.repeat(20),
    txs: txEvents.map((_, i) => Buffer.from(`tx-${height}-${i}`).toString('base64')),
    txResults: txEvents.map((events) => txResult(events)),
    finalizeBlockEvents: [],
  };
}

/** A tx result carrying only its code and events (what the collectors read). */
export function txResult(events: AbciEvent[], code = 0): RawBlock['txResults'][number] {
  return { code, codespace: '', log: '', info: '', data: '', gasWanted: '0', gasUsed: '0', events };
}

/** NFT look-ups answering from tables, recording every call as `method contract[ tokenId]`. */
export function tableLookups(tables: {
  wasm?: Record<string, { name: string; creator: string } | undefined>;
  wasmUris?: Record<string, string>;
  evmNames?: Record<string, string>;
  evmUris?: Record<string, string>;
}): NftLookups & { calls: string[] } {
  const calls: string[] = [];
  const fail = (what: string): never => {
    throw new Error(`unexpected look-up ${what}`);
  };
  return {
    calls,
    moveNft: async (o) => fail(`moveNft ${o}`),
    moveCollection: async (o) => fail(`moveCollection ${o}`),
    wasmCollection: async (c) => {
      calls.push(`wasmCollection ${c}`);
      return tables.wasm?.[c];
    },
    wasmTokenUri: async (c, id) => {
      calls.push(`wasmTokenUri ${c} ${id}`);
      return tables.wasmUris?.[`${c}/${id}`] ?? '';
    },
    evmName: async (c) => {
      calls.push(`evmName ${c}`);
      return tables.evmNames?.[c] ?? '';
    },
    evmTokenUri: async (c, id) => {
      calls.push(`evmTokenUri ${c} ${id}`);
      return tables.evmUris?.[`${c}/${id}`] ?? '';
    },
  };
}

/** A real pino logger whose lines are kept (parsed) for assertions. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { logger, lines };
}
