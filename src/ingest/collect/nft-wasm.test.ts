import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toBech32 } from '../../shared/address.js';
import type { AbciEvent } from '../../node/types.js';
import type { NftChange } from '../../store/writers/nft-rows.js';
import { abciEvent, blockOf, capturingLogger, tableLookups } from '../../../test/helpers/nft-blocks.js';
import { collectWasmNfts } from './nft-wasm.js';

const account = (fill: number, size = 20): string => toBech32(new Uint8Array(size).fill(fill), 'init');
const CW721 = account(0x11, 32);
const SG721 = account(0x12, 32);
const CW20 = account(0x13, 32);
const ALICE = account(0xa1);
const BOB = account(0xb0);
const COLLECTIONS = {
  [CW721]: { name: 'Cats', creator: ALICE },
  [SG721]: { name: 'Stars', creator: BOB },
};

const wasm = (contract: string, attrs: Array<[string, string]>): AbciEvent =>
  abciEvent('wasm', [['_contract_address', contract], ...attrs]);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
/** A change as plain text for comparisons: kind, token id, owner (bech32) or uri, tx index. */
function show(c: NftChange): string {
  const id = 'tokenId' in c.ref ? c.ref.tokenId : hex(c.ref.object);
  const tail =
    c.kind === 'mint'
      ? ` ${toBech32(c.owner, 'init')} ${c.uri}`
      : c.kind === 'transfer'
        ? ` ${toBech32(c.owner, 'init')}`
        : c.kind === 'uri'
          ? ` ${c.uri}`
          : '';
  return `${c.kind} ${id}${tail} @${c.txIndex}`;
}

describe('Wasm NFT collector: unreadable owners never stop ingest', () => {
  it('a mint or transfer naming no account address is skipped with a warning naming height, tx and contract; the rest of the block is kept', async () => {
    const { logger, lines } = capturingLogger();
    const raw = blockOf(40, [
      [
        wasm(CW721, [
          ['action', 'mint'],
          ['minter', ALICE],
          ['owner', 'not-an-address'],
          ['token_id', '1'],
          ['token_uri', 'u1'],
        ]),
      ],
      [
        wasm(CW721, [
          ['action', 'mint'],
          ['minter', ALICE],
          ['owner', BOB],
          ['token_id', '2'],
          ['token_uri', 'u2'],
        ]),
      ],
      [
        wasm(CW721, [
          ['action', 'transfer_nft'],
          ['sender', BOB],
          ['recipient', 'cosmos1zzz'],
          ['token_id', '2'],
        ]),
      ],
      [
        wasm(CW721, [
          ['action', 'send_nft'],
          ['sender', BOB],
          ['recipient', ALICE],
          ['token_id', '2'],
        ]),
      ],
    ]);
    const rows = await collectWasmNfts(raw, {
      prefix: 'init',
      lookups: tableLookups({ wasm: COLLECTIONS }),
      logger,
    });
    expect(rows.changes.map(show)).toEqual([`mint 2 ${BOB} u2 @1`, `transfer 2 ${ALICE} @3`]);
    const skipped = lines.filter((l) => l.msg === 'NFT event skipped: unreadable chain data');
    expect(skipped).toHaveLength(2);
    expect(skipped[0]).toMatchObject({
      height: 40,
      contract: CW721,
      tokenId: '1',
      owner: 'not-an-address',
      level: 40,
    });
    expect(skipped[0]!.tx).toMatch(/^[0-9A-F]{64}$/);
    expect(skipped[1]).toMatchObject({ height: 40, contract: CW721, tokenId: '2', recipient: 'cosmos1zzz' });
    expect(skipped[1]!.tx).not.toBe(skipped[0]!.tx);
  });
});

describe('Wasm NFT collector: which contracts are asked (docs/ingest.md §7.3)', () => {
  it('cw20 mint / burn / transfer events (no token_id, no minter) are never queried', async () => {
    const lookups = tableLookups({ wasm: COLLECTIONS });
    const raw = blockOf(5, [
      [
        wasm(CW20, [
          ['action', 'mint'],
          ['to', ALICE],
          ['amount', '10'],
        ]),
      ],
      [
        wasm(CW20, [
          ['action', 'burn'],
          ['from', ALICE],
          ['amount', '3'],
        ]),
      ],
      [
        wasm(CW20, [
          ['action', 'transfer'],
          ['from', ALICE],
          ['to', BOB],
          ['amount', '1'],
        ]),
      ],
    ]);
    const rows = await collectWasmNfts(raw, { prefix: 'init', lookups });
    expect(lookups.calls).toEqual([]);
    expect(rows).toEqual({ collections: [], changes: [], originNames: [] });
  });

  it('a transfer is enough to find a collection first touched after the start height; a contract that is no collection is ignored', async () => {
    const other = account(0x14, 32);
    const lookups = tableLookups({ wasm: COLLECTIONS });
    const raw = blockOf(6, [
      [
        wasm(CW721, [
          ['action', 'transfer_nft'],
          ['sender', ALICE],
          ['recipient', BOB],
          ['token_id', '9'],
        ]),
      ],
      [
        wasm(other, [
          ['action', 'burn'],
          ['sender', ALICE],
          ['token_id', '9'],
        ]),
      ],
    ]);
    const rows = await collectWasmNfts(raw, { prefix: 'init', lookups });
    expect(lookups.calls.sort()).toEqual([`wasmCollection ${CW721}`, `wasmCollection ${other}`].sort());
    expect(rows.collections.map((c) => [hex(c.addr), c.name])).toEqual([['11'.repeat(32), 'Cats']]);
    expect(rows.changes.map(show)).toEqual([`transfer 9 ${BOB} @0`]);
  });
});

describe('Wasm NFT collector: sg721 and URI changes', () => {
  it("sg721's instantiate (minter + creator) marks the collection; its mint carries token_uri, so no nft_info is read", async () => {
    const lookups = tableLookups({ wasm: COLLECTIONS });
    const raw = blockOf(7, [
      [
        wasm(SG721, [
          ['action', 'instantiate'],
          ['contract_name', 'crates.io:sg721-base'],
          ['contract_version', '3.1.0'],
          ['minter', ALICE],
          ['creator', BOB],
        ]),
        wasm(SG721, [
          ['action', 'mint'],
          ['minter', ALICE],
          ['owner', BOB],
          ['token_id', '1'],
          ['token_uri', 'ipfs://stars/1.json'],
        ]),
      ],
    ]);
    const rows = await collectWasmNfts(raw, { prefix: 'init', lookups });
    expect(rows.collections).toEqual([
      {
        addr: new Uint8Array(32).fill(0x12),
        height: 7,
        timestamp: raw.time,
        name: 'Stars',
        creator: new Uint8Array(20).fill(0xb0),
      },
    ]);
    expect(rows.changes.map(show)).toEqual([`mint 1 ${BOB} ipfs://stars/1.json @0`]);
    expect(lookups.calls).toEqual([`wasmCollection ${SG721}`]);
  });

  it('update_token_metadata with token_uri sets the uri, an empty one clears it', async () => {
    const raw = blockOf(8, [
      [
        wasm(SG721, [
          ['action', 'update_token_metadata'],
          ['token_id', '1'],
          ['token_uri', 'ipfs://new/1.json'],
        ]),
      ],
      [
        wasm(SG721, [
          ['action', 'update_token_metadata'],
          ['token_id', '2'],
          ['token_uri', ''],
        ]),
      ],
    ]);
    const lookups = tableLookups({ wasm: COLLECTIONS });
    const rows = await collectWasmNfts(raw, { prefix: 'init', lookups });
    expect(rows.changes.map(show)).toEqual(['uri 1 ipfs://new/1.json @0', 'uri 2  @1']);
    expect(lookups.calls).toEqual([`wasmCollection ${SG721}`]);
  });

  it("sg721-updatable's own event (wasm-update_update_token_metadata) changes the uri; without token_uri (cleared) nft_info tells", async () => {
    const custom = (attrs: Array<[string, string]>) =>
      abciEvent('wasm-update_update_token_metadata', [['_contract_address', SG721], ...attrs]);
    const lookups = tableLookups({ wasm: COLLECTIONS, wasmUris: {} });
    const raw = blockOf(9, [
      [
        custom([
          ['sender', BOB],
          ['token_id', '3'],
          ['token_uri', 'ipfs://v2/3.json'],
        ]),
      ],
      [
        custom([
          ['sender', BOB],
          ['token_id', '4'],
        ]),
      ],
    ]);
    const rows = await collectWasmNfts(raw, { prefix: 'init', lookups });
    expect(rows.changes.map(show)).toEqual(['uri 3 ipfs://v2/3.json @0', 'uri 4  @1']);
    expect(lookups.calls).toContain(`wasmTokenUri ${SG721} 4`);
  });

  it('cw721 ≥ 0.19 update_nft_info names no uri: the uri is nft_info at the block height', async () => {
    const lookups = tableLookups({
      wasm: COLLECTIONS,
      wasmUris: { [`${CW721}/5`]: 'ipfs://cats/5-v2.json' },
    });
    const raw = blockOf(10, [
      [
        wasm(CW721, [
          ['action', 'update_nft_info'],
          ['token_id', '5'],
        ]),
      ],
    ]);
    const rows = await collectWasmNfts(raw, { prefix: 'init', lookups });
    expect(rows.changes.map(show)).toEqual(['uri 5 ipfs://cats/5-v2.json @0']);
  });

  it('burns of a collection are kept; a burn without token_id is nothing', async () => {
    const raw = blockOf(11, [
      [
        wasm(CW721, [
          ['action', 'burn'],
          ['sender', ALICE],
          ['token_id', '5'],
        ]),
        wasm(CW721, [['action', 'burn']]),
      ],
    ]);
    const rows = await collectWasmNfts(raw, { prefix: 'init', lookups: tableLookups({ wasm: COLLECTIONS }) });
    expect(rows.changes.map(show)).toEqual(['burn 5 @0']);
  });
});

describe('Wasm NFT collector: real cw721 samples (real-tx-decoder)', () => {
  const SAMPLES = new URL('../../../test/fixtures/chain-samples/real-tx-decoder/', import.meta.url);
  /** The ABCI events of the first tx_response in a recorded sample file. */
  function sampleEvents(file: string): AbciEvent[] {
    const find = (v: unknown): AbciEvent[] | undefined => {
      if (Array.isArray(v)) return v.map(find).find((x) => x !== undefined);
      if (v === null || typeof v !== 'object') return undefined;
      const o = v as Record<string, unknown>;
      if (Array.isArray(o.events) && 'tx' in o) return o.events as AbciEvent[];
      return Object.values(o)
        .map(find)
        .find((x) => x !== undefined);
    };
    return find(JSON.parse(readFileSync(new URL(file, SAMPLES), 'utf8')))!;
  }
  const MOO = 'init1qyygux5t4s3a3l25k8psxjydhtudu5lnt0tk0szm8q4s27xa980scjvh6c';

  it('cosmos/wasm/cw721-mint.json: cw721-base mints without token_uri, so the uri comes from nft_info', async () => {
    const lookups = tableLookups({
      wasm: { [MOO]: { name: 'moo', creator: '' } },
      wasmUris: { [`${MOO}/1`]: 'ipfs://moo/1' },
    });
    const rows = await collectWasmNfts(blockOf(415297, [sampleEvents('cosmos/wasm/cw721-mint.json')]), {
      prefix: 'init',
      lookups,
    });
    expect(rows.changes.map(show)).toEqual([
      'mint 1 init1dw49mn7s2r5mskjdmus5hth80zz8wwaywycq06 ipfs://moo/1 @0',
    ]);
    expect(rows.collections.map((c) => [c.name, c.creator])).toEqual([['moo', null]]);
  });

  it('cosmos/wasm/cw721-transfer.json: transfer_nft to its recipient', async () => {
    const lookups = tableLookups({ wasm: { [MOO]: { name: 'moo', creator: '' } } });
    const rows = await collectWasmNfts(blockOf(9, [sampleEvents('cosmos/wasm/cw721-transfer.json')]), {
      prefix: 'init',
      lookups,
    });
    expect(rows.changes.map(show)).toEqual(['transfer 2 init1veaum7vy45fzw5x4mflskgx5lnmwmxx5wm3x8p @0']);
  });

  it('cosmos/wasm/cw20-transfer.json: a cw20 transfer asks no contract anything', async () => {
    const lookups = tableLookups({});
    const rows = await collectWasmNfts(blockOf(9, [sampleEvents('cosmos/wasm/cw20-transfer.json')]), {
      prefix: 'init',
      lookups,
    });
    expect(lookups.calls).toEqual([]);
    expect(rows.changes).toEqual([]);
  });
});
