import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountBytesFromString, toBech32 } from '../../src/shared/address.js';
import { originNames } from '../../src/ingest/collect/nft-events.js';
import type { RawBlock } from '../../src/node/types.js';
import { createNftCollector } from '../../src/ingest/collect/nft-collector.js';
import { createNftLookups } from '../../src/node/nft-lookups.js';
import { createRestClient } from '../../src/node/rest.js';
import { createTransport } from '../../src/node/transport.js';
import { createSimulator } from '../../src/sim/simulator.js';
import { REAL_SAMPLES } from '../fixtures/decode/samples.js';
import { heavySuiteVms, testDbFactories, type TestDbFactory } from '../helpers/db.js';
import { abciEvent, blockOf } from '../helpers/nft-blocks.js';
import { ingestFrom, startSimulator } from '../helpers/ingest.js';
import { storedTxTexts } from '../helpers/stored-tx.js';

interface StoredToken {
  collection: string;
  name: string;
  creator: Uint8Array | null;
  origin_name: string;
  nft_count: number;
  token_id: string;
  object: string | null;
  owner: Uint8Array;
  uri: string;
  txs: string[];
}

async function replayAndRead(factory: TestDbFactory, vm: 'move' | 'wasm' | 'evm'): Promise<StoredToken[]> {
  const { db, dispose } = await factory.create();
  // A replay's head is the number of recordings, whatever `head` asks.
  const { sim, urls } = await startSimulator({ vm, head: 1, sim: { replay: REAL_SAMPLES } });
  try {
    await ingestFrom({ db, vm, urls, untilHeight: sim.head() });
    const { rows } = await db.query<Omit<StoredToken, 'txs'> & { txs: number[] }>(`
      SELECT '0x' || encode(c.addr, 'hex') AS collection, c.name,
             (SELECT cd.account FROM account_dict cd WHERE cd.id = c.creator_id) AS creator, c.origin_name, c.nft_count, n.token_id,
             '0x' || encode(n.object_addr, 'hex') AS object, d.account AS owner, n.uri,
             array(SELECT e.sequence FROM tx_nfts e WHERE e.nft_id = n.nft_id ORDER BY e.sequence) AS txs
        FROM nft n JOIN nft_collection c ON c.addr = n.collection_addr JOIN account_dict d ON d.id = n.owner_id
       ORDER BY c.addr, n.token_id`);
    const texts = new Map((await storedTxTexts(db)).map((t) => [t.sequence, t.data]));
    return rows.map((r) => ({ ...r, txs: r.txs.map((s) => texts.get(Number(s))!) }));
  } finally {
    await sim.close();
    await dispose();
  }
}

/** The cw721 contract of cosmos/wasm/cw721-{mint,transfer}.json (`_contract_address`). */
const CW721 = 'init1qyygux5t4s3a3l25k8psxjydhtudu5lnt0tk0szm8q4s27xa980scjvh6c';
/** The redeemed collection of protocols/ibc/nft-wasm.json (`nft_contract`). */
const SAINTS = 'init16yzagwlqrzjkjlnaecam5fwvtzgae5zujtcch7y2uf6q9fyksncquahlaw';

const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex');

const readable = (r: StoredToken) => ({
  ...r,
  creator: r.creator ? toBech32(r.creator, 'init') : null,
  owner: toBech32(r.owner, 'init'),
  txs: r.txs.length,
  nft_count: Number(r.nft_count),
});

/**
 * The collectors differ by VM and write the same SQL on either store: with both stores in the run
 * each VM's samples are replayed once, PGlite taking Move and PostgreSQL Wasm and EVM
 * (heavySuiteVms, docs/testing.md).
 */
describe.each(testDbFactories())('NFTs of the real recorded samples, replayed, on $name', (factory) => {
  const vms = heavySuiteVms(factory.name);
  if (vms.includes('move'))
    it('Move: the initia_nft mint and the IBC-received NFT come out as the samples say', async () => {
      const rows = await replayAndRead(factory, 'move');
      // cosmos/move/nft/nft-mint.json: MintEvent token 1 of collection 0x597c…4e20 (63 hex digits), object
      // 0xeafb…1b86; the recorded Nft resource gives the uri, the Collection resource the name and creator
      // 0xe7dd…3b5c, who owns the new object (CreateEvent owner; no TransferEvent in the tx).
      // protocols/ibc/move/receive-nft-move.json (remote token): CreateCollectionEvent 0xfa4e…010c named
      // ibc/0A1F…09E2 by 0x1, MintEvent token 6089 object 0x5eab…bf73, TransferEvent 0x1 → 0x3e1b…4db9.
      // Its packet's source port is wasm.init1…, not nft-transfer, so no origin name (docs/ingest.md §7.4). The burn
      // sample burns an object minted before the replay: nothing to delete.
      expect(rows.map(readable)).toEqual([
        {
          collection: '0x0597cd3f37f21f59c771731a31e92ac1214f72b4f8a86541a94b50f0308f4e20',
          name: 'Favorite food',
          creator: toBech32(Buffer.from('e7ddea46e6bd763c1610f0544f5cf9dc8c623b5c', 'hex'), 'init'),
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
          creator: toBech32(Buffer.from('01'.padStart(40, '0'), 'hex'), 'init'),
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

  if (vms.includes('wasm'))
    it('Wasm: cw721 mint and transfer, and the ICS-721 redemption, come out as the samples say', async () => {
      const rows = await replayAndRead(factory, 'wasm');
      const cw721 = '0x' + Buffer.from(accountBytesFromString(CW721, 'init')).toString('hex');
      const saints = '0x' + Buffer.from(accountBytesFromString(SAINTS, 'init')).toString('hex');
      expect(rows.map(readable)).toEqual([
        {
          // cosmos/wasm/cw721-mint.json: wasm event action=mint, _contract_address init1qyyg…h6c,
          // token_id 1, owner init1dw49…q06; the event has no token_uri, the executed msg's mint has
          // token_uri …/saint_seiya/1.json (answered by the replay node's nft_info).
          collection: cw721,
          // Nothing in the recordings names this contract or says who instantiated it: name "", no creator.
          name: '',
          creator: null,
          origin_name: '',
          nft_count: 2,
          token_id: '1',
          object: null,
          owner: 'init1dw49mn7s2r5mskjdmus5hth80zz8wwaywycq06',
          uri: 'https://nft-rho-ten.vercel.app/saint_seiya/1.json',
          txs: 1,
        },
        {
          // cosmos/wasm/cw721-transfer.json: action=transfer_nft of token_id 2 to recipient
          // init1veau…8p; token 2 was minted before the recording, whose uri it never shows: "".
          collection: cw721,
          name: '',
          creator: null,
          origin_name: '',
          nft_count: 2,
          token_id: '2',
          object: null,
          owner: 'init1veaum7vy45fzw5x4mflskgx5lnmwmxx5wm3x8p',
          uri: '',
          txs: 1,
        },
        {
          // protocols/ibc/nft-wasm.json (mockIbcNftReceiveWasm): is_redemption=true, nft_contract
          // init16yza…law; its classData gives name "Saint Seiya Bronze Saints" and contract_info.creator
          // init1dw49…q06; the cw721 wasm event transfer_nft token_id 4 → recipient init1dw49…q06.
          // A transfer places a token minted before the recording with uri "" (docs/ingest.md §7.3), although the
          // packet's tokenUris names …/saint_seiya/4.json. The l2 class name (wasm.init1wug8…/channel-1/…)
          // is no collection's name, so no origin name.
          collection: saints,
          name: 'Saint Seiya Bronze Saints',
          creator: 'init1dw49mn7s2r5mskjdmus5hth80zz8wwaywycq06',
          origin_name: '',
          nft_count: 1,
          token_id: '4',
          object: null,
          owner: 'init1dw49mn7s2r5mskjdmus5hth80zz8wwaywycq06',
          uri: '',
          txs: 1,
        },
      ]);
      expect(rows[0]!.txs[0]).toContain('"token_uri":"https://nft-rho-ten.vercel.app/saint_seiya/1.json"');
      expect(rows[1]!.txs[0]).toContain('"transfer_nft"');
      expect(rows[2]!.txs[0]).toContain('MsgRecvPacket');
    }, 300_000);

  if (vms.includes('evm'))
    it('EVM: the ERC721 mint of the IBC receipt is a token of its contract, owned by the receiver', async () => {
      const rows = await replayAndRead(factory, 'evm');
      // protocols/ibc/evm/receive-nft-evm.json
      expect(rows.map(readable)).toEqual([
        {
          // contract_created 0x8376…d27f, then erc721_created class_id ibc/28B1…4448: minievm deploys
          // its ERC721 with name = class id; creator = the signer of the first tx touching it (docs/ingest.md §7.2),
          // the relayer init1weel…v00 (tx fee_payer).
          collection: '0x83769beeb7e5405ef0b7dc3c66c43e3a51a6d27f',
          name: 'ibc/28B13B47C4342699063DDD3E07B7BBCEEDB1CBFBFE2C70296C69A7AA91A14448',
          creator: 'init1weelg7lg98xqv90ntmc8j3pgrd5lyy9yzk9v00',
          // recv_packet nft-transfer → nft-transfer/channel-1, classData name "Jennie" (docs/ingest.md §7.4).
          origin_name: 'Jennie',
          nft_count: 1,
          // Transfer log from the zero topic, token id topic 0x6b86…5b4b (= erc721_minted token_id).
          token_id: BigInt('0x6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b').toString(),
          object: null,
          // to topic 0x6baa…3ba4 = the packet's receiver init1dw49…q06.
          owner: 'init1dw49mn7s2r5mskjdmus5hth80zz8wwaywycq06',
          // erc721_minted token_origin_id 1 = packet tokenIds[0]; tokenUris[0].
          uri: 'https://jennie.initia.xyz/data/9_4.json',
          txs: 1,
        },
      ]);
      expect(rows[0]!.txs[0]).toContain('nft-transfer');
    }, 300_000);
});

/** What the recordings say read straight through the collectors: no database involved. */
describe('NFT events of the real recorded samples', () => {
  it('EVM: the client-formatted ERC721 receipts, fed to the EVM collector as minievm evm events', async () => {
    // ethereum/erc721/*.json are {tx, txReceipt} as a JSON-RPC client formats them, not Cosmos tx
    // responses, so the replay node cannot serve them as blocks. Each receipt's logs become the
    // minievm `evm` events of one tx (attribute `log` = {"address","topics","data"}) and go through
    // the EVM collector; its look-ups ask the replay node, which knows nothing of 0x5d43…c677:
    // name() answers empty as for a contract without code, so the collection is named "".
    const sim = createSimulator({ vm: 'evm', replay: REAL_SAMPLES, rpcPort: 0, restPort: 0, jsonRpcPort: 0 });
    const urls = await sim.listen();
    try {
      const rest = createRestClient(
        createTransport({ name: 'rest', endpoints: [urls.rest], timeoutMs: 5_000, maxConcurrent: 2 }),
      );
      const collect = createNftCollector({ vm: 'evm', prefix: 'init', lookups: createNftLookups({ rest }) });
      const fromReceipt = async (file: string) => {
        const sample = Object.values(JSON.parse(readFileSync(path.join(REAL_SAMPLES, file), 'utf8')))[0] as {
          txReceipt: { logs: Array<{ address: string; topics: string[]; data: string }> };
        };
        const events = sample.txReceipt.logs.map(({ address, topics, data }) =>
          abciEvent('evm', [['log', JSON.stringify({ address, topics, data })]]),
        );
        const raw = blockOf(1, [events]);
        const rows = await collect(raw);
        return {
          collections: rows.collections.map((c) => ({ addr: hex(c.addr), name: c.name })),
          changes: rows.changes.map((c) => ({
            kind: c.kind,
            collection: 'collection' in c.ref ? hex(c.ref.collection) : '',
            tokenId: 'tokenId' in c.ref ? c.ref.tokenId : '',
            owner: 'owner' in c ? '0x' + Buffer.from(c.owner).toString('hex') : '',
          })),
        };
      };
      // erc721-transfer-from.json: one log of 0x5d43…c677, Transfer topics from 0x19f8…4f46 to
      // 0x8f43…d2e3, token id topic 0x…11d1 = 4561; data "0x".
      expect(await fromReceipt('ethereum/erc721/erc721-transfer-from.json')).toEqual({
        collections: [{ addr: '0x5d4376b62fa8ac16dfabe6a9861e11c33a48c677', name: '' }],
        changes: [
          {
            kind: 'transfer',
            collection: '0x5d4376b62fa8ac16dfabe6a9861e11c33a48c677',
            tokenId: '4561',
            owner: '0x8f433715afa790ee2b35986de88da9aafdd0d2e3',
          },
        ],
      });
      // erc721-safe-transfer-from.json: logs 0 and 2 are ERC20 Transfers of 0xe1ff…2546 (3 topics,
      // amount in data), not NFTs; log 1 moves token 0x…22b4 = 8884 of 0x5d43…c677 to 0xdc94…1b99.
      expect(await fromReceipt('ethereum/erc721/erc721-safe-transfer-from.json')).toEqual({
        collections: [{ addr: '0x5d4376b62fa8ac16dfabe6a9861e11c33a48c677', name: '' }],
        changes: [
          {
            kind: 'transfer',
            collection: '0x5d4376b62fa8ac16dfabe6a9861e11c33a48c677',
            tokenId: '8884',
            owner: '0xdc945a8ce61c20ae2a39381b23e5362ba51c1b99',
          },
        ],
      });
      // Neither recording shows a mint, so neither shows a uri: the writer places a transferred
      // token it has not seen with uri "" (docs/ingest.md §7.2 upsert; covered by the NFT writer tests).
    } finally {
      await sim.close();
    }
  });

  it('origin names of the real IBC NFT receipts (docs/ingest.md §7.4)', () => {
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
