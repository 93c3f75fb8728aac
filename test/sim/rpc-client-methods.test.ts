import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { SimulatorOptions } from '../../src/sim/types.js';
import { createVipSimExtension } from '../../src/sim/vip/mount.js';
import { toBech32 } from '../../src/shared/address.js';
import {
  QuerySmartContractStateRequest,
  QuerySmartContractStateResponse,
} from 'cosmjs-types/cosmwasm/wasm/v1/query';
import { useSimulators } from './helpers/sims.js';

const startSim = useSimulators();
const start = (options: Partial<SimulatorOptions> = {}) =>
  startSim({ vm: 'move', head: 60, seed: 5, fastSignatures: true, txsPerBlock: '1-4', ...options });

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: string } };

function rpcCaller(url: string) {
  return async (method: string, params: Record<string, unknown> = {}): Promise<Answer> => {
    const res = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Answer;
  };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest();
const internal = (data: string) => ({ code: -32603, message: 'Internal error', data });

describe('CometBFT client methods', () => {
  it('tx and tx_search: encodings, proofs, paging, order, and CometBFT errors', async () => {
    const { sim, urls } = await start();
    const rpc = rpcCaller(urls.rpc);
    const truth = sim.truth.block(9).txs[0]!;
    const hashB64 = Buffer.from(truth.hash, 'hex').toString('base64');
    const tx = (await rpc('tx', { hash: hashB64 })).result!;
    expect(Object.keys(tx)).toEqual(['hash', 'height', 'index', 'tx_result', 'tx']);
    expect([tx.hash, tx.height, tx.index]).toEqual([truth.hash, '9', 0]);
    const results = (await rpc('block_results', { height: '9' })).result as { txs_results: unknown[] };
    expect(tx.tx_result).toEqual(results.txs_results[0]);
    // GET URI form: 0x hex hash, prove=true adds a proof whose path hashes to data_hash.
    const uri = (await (await fetch(`${urls.rpc}/tx?hash=0x${truth.hash}&prove=true`)).json()) as Answer;
    const proof = uri.result!.proof as {
      root_hash: string;
      proof: { leaf_hash: string; aunts?: string[]; index: string; total: string };
    };
    const block = (await rpc('block', { height: '9' })).result as {
      block: { header: { data_hash: string } };
    };
    expect(proof.root_hash).toBe(block.block.header.data_hash);
    let node = Buffer.from(proof.proof.leaf_hash, 'base64');
    expect(node).toEqual(sha(Buffer.concat([Buffer.from([0]), Buffer.from(truth.hash, 'hex')])));
    // Index 0: every aunt is a right sibling.
    for (const aunt of proof.proof.aunts ?? [])
      node = sha(Buffer.concat([Buffer.from([1]), node, Buffer.from(aunt, 'base64')]));
    expect(node.toString('hex').toUpperCase()).toBe(proof.root_hash);

    const unknown = 'AB'.repeat(32);
    expect((await rpc('tx', { hash: Buffer.from(unknown, 'hex').toString('base64') })).error).toEqual(
      internal(`tx (${unknown}) not found`),
    );
    const all = Array.from({ length: 60 }, (_, i) => sim.truth.block(i + 1).txs).flat();
    const page2 = (
      await rpc('tx_search', { query: 'tx.height>0', page: '2', per_page: '7', order_by: 'desc' })
    ).result as { txs: Array<{ hash: string }>; total_count: string };
    expect(page2.total_count).toBe(String(all.length));
    expect(page2.txs.map((t) => t.hash)).toEqual(
      [...all]
        .reverse()
        .slice(7, 14)
        .map((t) => t.hash),
    );
    const pages = Math.ceil(all.length / 30);
    expect((await rpc('tx_search', { query: 'tx.height>0', page: String(pages + 1) })).error).toEqual(
      internal(`page should be within [1, ${pages}] range, given ${pages + 1}`),
    );
    expect((await rpc('tx_search', { query: 'tx.height>0', order_by: 'up' })).error).toEqual(
      internal('expected order_by to be either `asc` or `desc` or empty'),
    );
    expect((await rpc('tx_search', { query: 'tx.height=' })).error).toEqual(internal('offset 10: EOF'));
    expect((await rpc('tx_search', { query: "tx.height 'x'" })).error!.data).toMatch(
      /^offset 10: got string, wanted/,
    );
    // A batch mixes the new methods with the old ones; each answer keeps its id.
    const batch = (await (
      await fetch(urls.rpc, {
        method: 'POST',
        body: JSON.stringify([
          { jsonrpc: '2.0', id: 'a', method: 'tx_search', params: { query: 'tx.height=9', per_page: '1' } },
          { jsonrpc: '2.0', id: 'b', method: 'header', params: ['9'] },
          { jsonrpc: '2.0', id: 'c', method: 'tx', params: [Buffer.alloc(32).toString('base64')] },
        ]),
      })
    ).json()) as Array<Answer & { id: string }>;
    expect(batch.map((a) => a.id)).toEqual(['a', 'b', 'c']);
    expect((batch[0]!.result as { txs: Array<{ hash: string }> }).txs[0]!.hash).toBe(truth.hash);
    expect(batch[1]!.result).toEqual({ header: block.block.header });
    expect(batch[2]!.error).toEqual(internal(`tx (${'00'.repeat(32)}) not found`));
    const none = (await rpc('tx_search', { query: `tx.hash='${unknown}'` })).result;
    expect(none).toEqual({ txs: [], total_count: '0' });
    // An event attribute equality AND a height bound.
    const signer = all[0]!.signer;
    const mine = (
      await rpc('tx_search', { query: `message.sender='${signer}' AND tx.height<=30`, per_page: '100' })
    ).result as { txs: Array<{ hash: string }> };
    expect(mine.txs.map((t) => t.hash)).toEqual(
      all.filter((t) => t.signer === signer && t.height <= 30).map((t) => t.hash),
    );
  });

  it('tx_search over a long chain: height ranges by arithmetic, event scans bounded', async () => {
    const { sim, urls } = await start({ head: 5_000_000 });
    const rpc = rpcCaller(urls.rpc);
    const last = (await rpc('tx_search', { query: 'tx.height>=4999998', order_by: 'desc', per_page: '2' }))
      .result as { txs: Array<{ hash: string; height: string }>; total_count: string };
    const tail = [4_999_998, 4_999_999, 5_000_000].flatMap((h) => sim.truth.block(h).txs);
    expect(last.total_count).toBe(String(tail.length));
    expect(last.txs.map((t) => t.hash)).toEqual(
      tail
        .reverse()
        .slice(0, 2)
        .map((t) => t.hash),
    );
    const wide = await rpc('tx_search', { query: "message.sender='init1x'" });
    expect(wide.error!.data).toMatch(
      /at most 5000 heights per query; narrow it with tx.height>=A AND tx.height<=B/,
    );
    const narrow = await rpc('tx_search', { query: "message.sender='init1x' AND tx.height>4999990" });
    expect(narrow.result).toEqual({ txs: [], total_count: '0' });
  });

  it('headers, hashes, commits and block_search', async () => {
    const { sim, urls } = await start();
    const rpc = rpcCaller(urls.rpc);
    const block = (await rpc('block', { height: '12' })).result as {
      block_id: unknown;
      block: { header: unknown; last_commit: unknown };
    };
    expect((await rpc('header', { height: '12' })).result).toEqual({ header: block.block.header });
    const hash = sim.truth.block(12).hash;
    expect((await rpc('header_by_hash', { hash })).result).toEqual({ header: block.block.header });
    const byHash = await rpc('block_by_hash', { hash: Buffer.from(hash, 'hex').toString('base64') });
    expect(byHash.result).toEqual(block);
    expect((await rpc('header_by_hash', { hash: '00'.repeat(32) })).result).toEqual({ header: null });
    expect((await rpc('block_by_hash', { hash: Buffer.alloc(32).toString('base64') })).result).toEqual({
      block_id: { hash: '', parts: { total: 0, hash: '' } },
      block: null,
    });
    // The commit for 11 is what block 12 carries; the head's is the (non-canonical) seen commit.
    const c11 = (await rpc('commit', { height: '11' })).result as {
      signed_header: { commit: unknown };
      canonical: boolean;
    };
    expect([c11.signed_header.commit, c11.canonical]).toEqual([block.block.last_commit, true]);
    expect(((await rpc('commit', {})).result as { canonical: boolean }).canonical).toBe(false);
    expect((await rpc('header', { height: '61' })).error).toEqual(
      internal('height 61 must be less than or equal to the current blockchain height 60'),
    );
    expect((await rpc('commit', { height: '0' })).error).toEqual(
      internal('height must be greater than 0, but got 0'),
    );
    const blocks = (await rpc('block_search', { query: 'block.height>=58', per_page: '2' })).result as {
      blocks: Array<{ block_id: { hash: string } }>;
      total_count: string;
    };
    expect(blocks.total_count).toBe('3');
    expect(blocks.blocks.map((b) => b.block_id.hash)).toEqual([60, 59].map((h) => sim.truth.block(h).hash));
    expect((await rpc('block_search', { query: 'block.height>=58', order_by: 'sideways' })).error).toEqual(
      internal('expected order_by to be either `asc` or `desc` or empty'),
    );
  });

  it('genesis, consensus params, net info, mempool and CheckTx without the VIP model', async () => {
    const { sim, urls } = await start();
    const rpc = rpcCaller(urls.rpc);
    const genesis = (await rpc('genesis')).result!.genesis as { chain_id: string; initial_height: string };
    expect([genesis.chain_id, genesis.initial_height]).toEqual([sim.options.chainId, '1']);
    const chunk = (await rpc('genesis_chunked', { chunk: '0' })).result as { data: string; total: string };
    expect(JSON.parse(Buffer.from(chunk.data, 'base64').toString('utf8'))).toEqual(genesis);
    expect((await rpc('genesis_chunked', { chunk: '1' })).error).toEqual(
      internal('there are 0 chunks, 1 is invalid'),
    );
    const params = (await rpc('consensus_params', { height: '5' })).result as { block_height: string };
    expect(params.block_height).toBe('5');
    expect((await rpc('net_info')).result).toMatchObject({ listening: true, n_peers: '0', peers: [] });
    expect((await rpc('num_unconfirmed_txs')).result).toEqual({
      n_txs: '0',
      total: '0',
      total_bytes: '0',
      txs: null,
    });
    expect((await rpc('unconfirmed_txs', { limit: '5' })).result).toMatchObject({ txs: [] });
    const garbage = (await rpc('broadcast_tx_sync', { tx: Buffer.from('not a tx').toString('base64') }))
      .result!;
    expect([garbage.code, garbage.codespace, garbage.log]).toEqual([2, 'sdk', 'tx parse error']);
    const included = (await rpc('block', { height: '3' })).result as { block: { data: { txs: string[] } } };
    const again = (await rpc('check_tx', { tx: included.block.data.txs[0] })).result!;
    expect([again.code, again.log]).toEqual([19, 'tx already exists in cache']);
    // The GET URI form carries the tx as 0x hex.
    const hex = Buffer.from(included.block.data.txs[0]!, 'base64').toString('hex');
    const uri = (await (await fetch(`${urls.rpc}/broadcast_tx_sync?tx=0x${hex}`)).json()) as Answer;
    expect(uri.result!.code).toBe(19);
  });

  it('with the VIP chain model, broadcast_tx_sync runs its CheckTx', async () => {
    const vip = createVipSimExtension({ vm: 'move', chainId: 'minimove-1' });
    const { urls } = await start({ extensions: [vip.extension] });
    const rpc = rpcCaller(urls.rpc);
    vip.chain.faults.rejectNextBroadcast = { code: 13, log: 'insufficient fee' };
    const tx = Buffer.from('any bytes').toString('base64');
    const rejected = (await rpc('broadcast_tx_sync', { tx })).result!;
    expect([rejected.code, rejected.log]).toEqual([13, 'insufficient fee']);
    // The model's own ante check (no signer) answers, not the simulator's "cannot execute" refusal.
    const parsed = (await rpc('broadcast_tx_sync', { tx })).result!;
    expect([parsed.code, parsed.codespace]).toEqual([4, 'sdk']);
    expect(vip.chain.stats.includedTxs).toBe(0);
  });

  it('abci_query: node info, unknown paths and heights as baseapp answers', async () => {
    const { urls } = await start();
    const rpc = rpcCaller(urls.rpc);
    const info = (await rpc('abci_query', { path: '/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo' }))
      .result as { response: { value: string; height: string } };
    expect(info.response.height).toBe('60');
    expect(Buffer.from(info.response.value, 'base64').toString('latin1')).toContain('rollup-sim');
    expect((await rpc('abci_query', { path: '/nope.Query/X' })).result).toEqual({
      response: { code: 6, log: 'unknown query path: unknown request', codespace: 'sdk' },
    });
    const future = (await rpc('abci_query', { path: '/cosmos.bank.v1beta1.Query/Balance', height: '61' }))
      .result as {
      response: { code: number };
    };
    expect(future.response.code).toBe(26);
    expect((await rpc('abci_query', { path: '/x', data: 'zz' })).error!.code).toBe(-32602);
  });

  it('abci_query answers Wasm smart queries from the same state as REST and the truth', async () => {
    const { sim, urls } = await start({ vm: 'wasm', head: 80, txsPerBlock: '2-5' });
    const rpc = rpcCaller(urls.rpc);
    const collection = sim.truth.nftCollections(80).find((c) => c.nftCount > 0)!;
    const address = toBech32(Buffer.from(collection.addr.slice(2), 'hex'), 'init');
    const query = Buffer.from(JSON.stringify({ num_tokens: {} }));
    const data = Buffer.from(
      QuerySmartContractStateRequest.encode({ address, queryData: query }).finish(),
    ).toString('hex');
    const answer = (await rpc('abci_query', { path: '/cosmwasm.wasm.v1.Query/SmartContractState', data }))
      .result as { response: { value: string; height: string } };
    expect(answer.response.height).toBe('80');
    const decoded = QuerySmartContractStateResponse.decode(Buffer.from(answer.response.value, 'base64'));
    const viaAbci = JSON.parse(Buffer.from(decoded.data).toString('utf8')) as { count: number };
    const rest = (await (
      await fetch(`${urls.rest}/cosmwasm/wasm/v1/contract/${address}/smart/${query.toString('base64')}`)
    ).json()) as { data: unknown };
    expect(viaAbci).toEqual(rest.data);
    expect(viaAbci.count).toBe(collection.nftCount);
  });
});
