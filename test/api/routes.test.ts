import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBytesFromString } from '../../src/shared/address.js';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, walk, type Harness } from './harness.js';
import { MSG_TYPES, type SeedChain, type SeedTx } from './seed.js';

/*
 * Expected JSON is built here from the chain's facts (hash, height, signer, message types, the
 * block's time and hash, each tx's fee), never copied from the stored text the API serves, so an
 * answer that is not the asked-for tx's own fails (field order included: compared as text).
 */

/** The fee every seeded tx pays: 1000 + sequence mod 10 uinit (seed.ts). */
const feeOf = (tx: SeedTx) => 1000 + (tx.sequence % 10);

/** RFC 3339 in UTC with the fraction's trailing zeros (and a bare dot) dropped (docs/api.md §1.4). */
function rfc3339(ms: number): string {
  const [whole, fraction = ''] = new Date(ms).toISOString().slice(0, -1).split('.');
  const kept = fraction.replace(/0+$/, '');
  return `${whole}${kept ? `.${kept}` : ''}Z`;
}

function blockAt(chain: SeedChain, height: number) {
  const block = chain.blocks.find((b) => b.height === height);
  if (!block) throw new Error(`no block ${height}`);
  return block;
}

/** The Cosmos REST form of a seeded tx (seed.ts writes it in this shape). */
function expectedCosmosTx(chain: SeedChain, tx: SeedTx): string {
  return JSON.stringify({
    txhash: tx.hash,
    height: String(tx.height),
    codespace: '',
    code: 0,
    data: '',
    raw_log: '',
    logs: [],
    info: '',
    gas_wanted: '200000',
    gas_used: '100000',
    tx: {
      body: { memo: 'a<b>&c', messages: tx.msgTypes.map((t) => ({ '@type': `/${t}`, sender: tx.signer })) },
      auth_info: { fee: { amount: [{ denom: 'uinit', amount: String(feeOf(tx)) }], gas_limit: '200000' } },
      signatures: [Buffer.from(tx.hash, 'hex').toString('base64')],
    },
    timestamp: rfc3339(blockAt(chain, tx.height).timestampMs),
    events: [{ type: 'message', attributes: [{ key: 'sender', index: true, value: tx.signer }] }],
  });
}

/** The EVM receipt of a seeded evm tx: its block's hash and number, its signer as `from` and `to`. */
function expectedEvmTx(chain: SeedChain, tx: SeedTx): string {
  const from = `0x${Buffer.from(accountBytesFromString(tx.signer, 'init')).toString('hex')}`;
  return JSON.stringify({
    blockHash: `0x${blockAt(chain, tx.height).hash.toLowerCase()}`,
    blockNumber: `0x${tx.height.toString(16)}`,
    contractAddress: null,
    cumulativeGasUsed: '0x5208',
    effectiveGasPrice: '0x0',
    from,
    gasUsed: '0x5208',
    logs: [],
    logsBloom: `0x${'0'.repeat(512)}`,
    status: '0x1',
    to: from,
    transactionHash: `0x${tx.hash.toLowerCase()}`,
    transactionIndex: '0x0',
    type: '0x2',
  });
}

/** Every list route walked page by page in both directions equals the seeded ground truth. */
describe.each(testDbFactories())('read API on $name (evm chain)', (factory) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(factory, { vm: 'evm', blocks: 60 });
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const hashes = (items: unknown[], key: 'txhash' | 'transactionHash') =>
    items.map((i) =>
      String((i as Record<string, string>)[key])
        .replace(/^0x/, '')
        .toUpperCase(),
    );
  const expectWalk = async (
    path: string,
    expected: SeedTx[],
    key: 'txhash' | 'transactionHash',
    query: Record<string, string | string[]> = {},
  ) => {
    const newestFirst = [...expected].sort((a, b) => b.sequence - a.sequence).map((t) => t.hash);
    for (const reverse of ['true', 'false']) {
      for (const limit of ['1', '7', '1000']) {
        const q = { ...query, 'pagination.limit': limit, 'pagination.reverse': reverse };
        const { items, total } = await walk(h, path, 'txs', q);
        expect(hashes(items, key)).toEqual(reverse === 'true' ? newestFirst : [...newestFirst].reverse());
        if ((!path.endsWith('/txs') && !path.endsWith('/evm-txs')) || query.msgs !== undefined) {
          expect(total, `${path} ${JSON.stringify(query)} total`).toBe(String(expected.length));
        }
      }
    }
  };

  /** A block's fee: the sum of its txs' fees, `[]` when it has none. */
  const totalFee = (height: number) => {
    const sum = h.chain.txs.filter((t) => t.height === height).reduce((n, t) => n + feeOf(t), 0);
    return sum === 0 ? [] : [{ denom: 'uinit', amount: String(sum) }];
  };

  it('GET /status and avg_blocktime', async () => {
    const status = await h.get('/status');
    expect(status.json).toEqual({ version: 'v0.1.0', commit_hash: 'unknown', chain_id: 'evm-1', height: 60 });
    const avg = await h.get('/indexer/block/v1/avg_blocktime');
    const blocks = h.chain.blocks.slice(-100);
    const span = ((blocks.at(-1)?.timestampMs ?? 0) - (blocks[0]?.timestampMs ?? 0)) / 1000;
    expect((avg.json as { avg_block_time: number }).avg_block_time).toBeCloseTo(
      span / (blocks.length - 1),
      9,
    );
  });

  it('walks /blocks both ways and renders blocks exactly', async () => {
    for (const reverse of ['true', 'false']) {
      const { items, total } = await walk(h, '/indexer/block/v1/blocks', 'blocks', {
        'pagination.limit': '7',
        'pagination.reverse': reverse,
      });
      const heights = items.map((b) => Number((b as { height: string }).height));
      const all = h.chain.blocks.map((b) => b.height);
      expect(heights).toEqual(reverse === 'true' ? [...all].reverse() : all);
      expect(total).toBe('60');
    }
    const b13 = h.chain.blocks[12];
    const one = await h.get('/indexer/block/v1/blocks/13');
    expect(one.json).toEqual({
      block: {
        chain_id: 'evm-1',
        height: '13',
        hash: b13?.hash,
        block_time: String(b13?.blockTimeMs),
        timestamp: new Date(b13?.timestampMs ?? 0).toISOString().replace(/\.\d+Z$/, 'Z'),
        gas_used: String(b13?.gasUsed),
        gas_wanted: String(b13?.gasWanted),
        tx_count: String(b13?.txCount),
        total_fee: totalFee(13),
        // No validator row for this proposer: moniker "".
        proposer: { moniker: '', identity: '', operator_address: b13?.proposer },
      },
    });
    expect(totalFee(13)).not.toEqual([]);
    const b10 = await h.get('/indexer/block/v1/blocks/10');
    expect(totalFee(10)).toEqual([]);
    expect(b10.body).toContain('"total_fee":[],"proposer":{"moniker":"evm-1-operator"');
  });

  it('walks /txs with and without msgs', async () => {
    const all = h.chain.txs;
    await expectWalk('/indexer/tx/v1/txs', all, 'txhash');
    const [send, exec, call] = MSG_TYPES;
    const having = (...types: (string | undefined)[]) =>
      all.filter((t) => t.msgTypes.some((m) => types.includes(m)));
    await expectWalk('/indexer/tx/v1/txs', having(send), 'txhash', { msgs: `/${send}` });
    await expectWalk('/indexer/tx/v1/txs', having(send, exec), 'txhash', { msgs: [`${send}`, `${exec}`] });
    await expectWalk('/indexer/tx/v1/txs', having(exec, call), 'txhash', { msgs: `${exec},/${call}` });
    await expectWalk('/indexer/tx/v1/txs', having(call), 'txhash', { msgs: [`${call}`, 'not.a.Type'] });
    const none = await h.get(`/indexer/tx/v1/txs?msgs=${MSG_TYPES[3]}&msgs=not.a.Type`);
    expect(none.json).toEqual({ txs: [], pagination: { previous_key: null, next_key: null, total: '0' } });
    const totals = await h.get(`/indexer/tx/v1/txs?msgs=${send}&pagination.limit=1`);
    expect((totals.json as { pagination: { total: string } }).pagination.total).toBe(
      String(having(send).length),
    );
    const head = await h.get('/indexer/tx/v1/txs?pagination.limit=1');
    expect((head.json as { pagination: { total: string } }).pagination.total).toBe(String(all.length));
  });

  it('walks /txs/by_account for every account, hex and bech32, with is_signer and msgs', async () => {
    for (const account of h.chain.accounts) {
      const involved = h.chain.txs.filter((t) => t.accounts.includes(account));
      const signed = involved.filter((t) => t.signer === account);
      await expectWalk(`/indexer/tx/v1/txs/by_account/${account}`, involved, 'txhash');
      const hexForm = `0x${Buffer.from(accountBytesFromString(account, 'init')).toString('hex').toUpperCase().replace(/^0X/, '')}`;
      await expectWalk(`/indexer/tx/v1/txs/by_account/${hexForm}`, signed, 'txhash', { is_signer: 'true' });
    }
    const busy = h.chain.accounts[0] as string;
    const [send, exec] = MSG_TYPES;
    const busyTxs = h.chain.txs.filter((t) => t.accounts.includes(busy));
    const filtered = busyTxs.filter(
      (t) => t.msgTypes.includes(send as string) || t.msgTypes.includes(exec as string),
    );
    await expectWalk(`/indexer/tx/v1/txs/by_account/${busy}`, filtered, 'txhash', {
      msgs: `${send},${exec}`,
    });
    const signedSend = busyTxs.filter((t) => t.signer === busy && t.msgTypes.includes(send as string));
    await expectWalk(`/indexer/tx/v1/txs/by_account/${busy}`, signedSend, 'txhash', {
      msgs: send as string,
      is_signer: 'true',
    });
    // is_signer only for the exact "true".
    await expectWalk(`/indexer/tx/v1/txs/by_account/${busy}`, busyTxs, 'txhash', { is_signer: 'True' });
  });

  it('walks /txs/by_height for every height, with msgs', async () => {
    const send = MSG_TYPES[0] as string;
    for (const block of h.chain.blocks) {
      const inBlock = h.chain.txs.filter((t) => t.height === block.height);
      const res = await walk(h, `/indexer/tx/v1/txs/by_height/${block.height}`, 'txs', {
        'pagination.limit': '2',
      });
      expect(hashes(res.items, 'txhash')).toEqual([...inBlock].reverse().map((t) => t.hash));
      expect(res.total).toBe(String(inBlock.length));
      const withMsg = inBlock.filter((t) => t.msgTypes.includes(send));
      const filtered = await walk(h, `/indexer/tx/v1/txs/by_height/${block.height}`, 'txs', {
        'pagination.limit': '1',
        msgs: send,
      });
      expect(hashes(filtered.items, 'txhash')).toEqual([...withMsg].reverse().map((t) => t.hash));
    }
  });

  it('finds txs by hash in every accepted form', async () => {
    const tx = h.chain.txs[5] as SeedTx;
    for (const form of [tx.hash, tx.hash.toLowerCase(), `0x${tx.hash.toLowerCase()}`, `0x${tx.hash}`]) {
      const res = await h.get(`/indexer/tx/v1/txs/${form}`);
      expect(res.status).toBe(200);
      expect(res.body).toBe(`{"tx":${expectedCosmosTx(h.chain, tx)}}`);
    }
    for (const other of h.chain.txs.slice(0, 5)) {
      const res = await h.get(`/indexer/tx/v1/txs/${other.hash}`);
      expect(res.body).toBe(`{"tx":${expectedCosmosTx(h.chain, other)}}`);
    }
  });

  it('walks the evm-txs family', async () => {
    const evm = h.chain.evmTxs;
    await expectWalk('/indexer/tx/v1/evm-txs', evm, 'transactionHash');
    const busy = h.chain.accounts[0] as string;
    const hex = `0x${Buffer.from(accountBytesFromString(busy, 'init')).toString('hex')}`;
    await expectWalk(
      `/indexer/tx/v1/evm-txs/by_account/${hex}`,
      evm.filter((t) => t.accounts.includes(busy)),
      'transactionHash',
    );
    await expectWalk(
      `/indexer/tx/v1/evm-txs/by_account/${busy}`,
      evm.filter((t) => t.signer === busy),
      'transactionHash',
      {
        is_signer: 'true',
      },
    );
    const height = evm[3]?.height ?? 1;
    const res = await walk(h, `/indexer/tx/v1/evm-txs/by_height/${height}`, 'txs', {
      'pagination.limit': '1',
    });
    expect(hashes(res.items, 'transactionHash')).toEqual(
      evm
        .filter((t) => t.height === height)
        .reverse()
        .map((t) => t.hash),
    );
    for (const one of evm.slice(0, 5)) {
      const found = await h.get(`/indexer/tx/v1/evm-txs/0x${one.hash.toLowerCase()}`);
      expect(found.body).toBe(`{"tx":${expectedEvmTx(h.chain, one)}}`);
    }
    expect((await h.get(`/indexer/tx/v1/evm-txs/0x${'ab'.repeat(32)}`)).json).toEqual({
      code: 5,
      message: 'tx not found',
      details: [],
    });
  });
});
