import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toBech32 } from '../../src/shared/address.js';
import { originNames } from '../../src/ingest/collectors/nft-events.js';
import type { RawBlock } from '../../src/node/types.js';
import { REAL_SAMPLES } from '../fixtures/decode/samples.js';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';

const [pglite] = testDbFactories();

interface StoredToken {
  collection: string;
  name: string;
  origin_name: string;
  nft_count: number;
  token_id: string;
  object: string | null;
  owner: Uint8Array;
  uri: string;
  txs: string[];
}

async function replayAndRead(vm: 'move' | 'evm'): Promise<StoredToken[]> {
  const { db, dispose } = await pglite!.create();
  const probe = await indexSimulator({ db, vm, head: 1, untilHeight: 0, sim: { replay: REAL_SAMPLES } });
  const head = probe.sim.head();
  await probe.close();
  const indexed = await indexSimulator({ db, vm, head, sim: { replay: REAL_SAMPLES } });
  try {
    const { rows } = await db.query<StoredToken>(`
      SELECT '0x' || encode(c.addr, 'hex') AS collection, c.name, c.origin_name, c.nft_count, n.token_id,
             '0x' || encode(n.object_addr, 'hex') AS object, d.account AS owner, n.uri,
             array(SELECT t.data FROM tx_nfts e JOIN tx t ON t.sequence = e.sequence
                    WHERE e.nft_id = n.nft_id ORDER BY e.sequence) AS txs
        FROM nft n JOIN nft_collection c ON c.addr = n.collection_addr JOIN account_dict d ON d.id = n.owner_id
       ORDER BY c.addr`);
    return rows;
  } finally {
    await indexed.close();
    await dispose();
  }
}

describe('NFTs of the real recorded samples, replayed', () => {
  it('Move: the initia_nft mint and the IBC-received NFT come out as the samples say', async () => {
    const rows = await replayAndRead('move');
    // cosmos/move/nft/nft-mint.json: MintEvent token 1 of collection 0x597c…4e20 (63 hex digits), object
    // 0xeafb…1b86; the recorded Nft resource gives the uri, the Collection resource the name and creator
    // 0xe7dd…3b5c, who owns the new object (CreateEvent owner; no TransferEvent in the tx).
    // protocols/ibc/move/receive-nft-move.json (remote token): CreateCollectionEvent 0xfa4e…010c named
    // ibc/0A1F…09E2 by 0x1, MintEvent token 6089 object 0x5eab…bf73, TransferEvent 0x1 → 0x3e1b…4db9.
    // Its packet's source port is wasm.init1…, not nft-transfer, so no origin name (§7.4). The burn
    // sample burns an object minted before the replay: nothing to delete.
    expect(
      rows.map((r) => ({
        ...r,
        owner: toBech32(r.owner, 'init'),
        txs: r.txs.length,
        nft_count: Number(r.nft_count),
      })),
    ).toEqual([
      {
        collection: '0x0597cd3f37f21f59c771731a31e92ac1214f72b4f8a86541a94b50f0308f4e20',
        name: 'Favorite food',
        origin_name: '',
        nft_count: 1,
        token_id: '1',
        object: '0xeafbe62f2441e2ecce99db4cfbab294f7542d78ce2d82ca28de13da0a9d41b86',
        owner: toBech32(Buffer.from('e7ddea46e6bd763c1610f0544f5cf9dc8c623b5c', 'hex'), 'init'),
        uri: 'https://nft-rho-ten.vercel.app/favoritefood/1',
        txs: 1,
      },
      {
        collection: '0xfa4e6b1a87f3acefcf070ecee04eb1e0ce4c6c5c89b87fe026b99c6ac47b010c',
        name: 'ibc/0A1FFECF8C217E1630E58ABF7BF857FD7CC762D165DF018D94DACBC8881209E2',
        origin_name: '',
        nft_count: 1,
        token_id: '6089',
        object: '0x5eab800f87ca40210f6905ac31341352575a44246302c5b27f438e978071bf73',
        owner: toBech32(Buffer.from('3e1bae25bc4eeb818eab90d51e3af356802d4db9', 'hex'), 'init'),
        uri: expect.stringMatching(/^ipfs:\/\/.+\/6089$/),
        txs: 1,
      },
    ]);
    expect(rows[0]!.txs[0]).toContain('0x1::collection::MintEvent');
    expect(rows[0]!.txs[0]).toContain('0xeafbe62f2441e2ecce99db4cfbab294f7542d78ce2d82ca28de13da0a9d41b86');
    expect(rows[1]!.txs[0]).toContain('0x5eab800f87ca40210f6905ac31341352575a44246302c5b27f438e978071bf73');
  }, 300_000);

  it('EVM: the ERC721 mint of the IBC receipt is a token of its contract, owned by the receiver', async () => {
    const rows = await replayAndRead('evm');
    // protocols/ibc/evm/receive-nft-evm.json: Transfer log of 0x8376…d27f from the zero topic to
    // 0x6baa…3ba4, token id topic 0x6b86…5b4b. The replay node knows nothing of the contract, so
    // name() and tokenURI() answer empty.
    expect(rows).toHaveLength(1);
    const r = rows[0]!;
    expect(r.collection).toBe('0x83769beeb7e5405ef0b7dc3c66c43e3a51a6d27f');
    expect(r.token_id).toBe(
      BigInt('0x6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b').toString(),
    );
    expect(toBech32(r.owner, 'init')).toBe(
      toBech32(Buffer.from('6baa5dcfd050e9b85a4ddf214baee77884773ba4', 'hex'), 'init'),
    );
    expect(r.object).toBeNull();
    expect(Number(r.nft_count)).toBe(1);
    expect(r.txs).toHaveLength(1);
    expect(r.txs[0]).toContain('nft-transfer');
  }, 300_000);

  it('origin names of the real IBC NFT receipts (§7.4)', () => {
    const recv = (file: string) => {
      const text = readFileSync(path.join(REAL_SAMPLES, file), 'utf8');
      const events: RawBlock['finalizeBlockEvents'] = [];
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) return v.forEach(walk);
        if (v === null || typeof v !== 'object') return;
        const o = v as { type?: unknown; attributes?: Array<{ key: string; value?: string }> };
        if (o.type === 'recv_packet' && Array.isArray(o.attributes))
          events.push({
            type: 'recv_packet',
            attributes: o.attributes.map((a) => ({ key: a.key, value: a.value ?? '', index: true })),
          });
        else Object.values(o).forEach(walk);
      };
      walk(JSON.parse(text));
      return events.map((e) => ({
        type: e.type,
        attrs: new Map(e.attributes.map((a) => [a.key, a.value])),
        raw: e.attributes,
        txIndex: 0,
      }));
    };
    // EVM: nft-transfer/channel-1/move/4b22…fa9a hashed; classData names "Jennie".
    expect(originNames('evm', recv('protocols/ibc/evm/receive-nft-evm.json'))).toEqual([
      { l2Name: 'ibc/28B13B47C4342699063DDD3E07B7BBCEEDB1CBFBFE2C70296C69A7AA91A14448', l1Name: 'Jennie' },
    ]);
    // Move: the source-token receipt (src port nft-transfer) counts; the remote one (src port wasm.…) does not.
    expect(originNames('move', recv('protocols/ibc/move/receive-nft-move.json'))).toEqual([
      {
        l2Name: 'ibc/6D1C9380CFC6CE14891325EAC487528A82CC655CF9C49C7D123289B5E59CF6CE',
        l1Name: 'Thailand places',
      },
    ]);
    // Wasm names the class by its full path.
    expect(originNames('wasm', recv('protocols/ibc/nft-wasm.json'))).toEqual([
      {
        l2Name:
          'wasm.init1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rppz9yjw0g4wtq7947m6/channel-1/nft-transfer/channel-30/init16yzagwlqrzjkjlnaecam5fwvtzgae5zujtcch7y2uf6q9fyksncquahlaw',
        l1Name: 'Saint Seiya Bronze Saints',
      },
    ]);
  });
});
