/**
 * Byte-identity check of the simulator: starts it in-process for each VM (and Move with the
 * `--vip` extension), asks every surface about heights 1..N and prints one sha256 per surface.
 * Two runs agree iff every answer byte agrees (listen ports excepted). Prints one JSON object.
 * Usage: npm run bench:sim-digest [-- --heights 400] [--dump DIR (every answer, to diff two runs)]
 */
import { createHash } from 'node:crypto';
import { QueryAccountRequest } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { QueryAllBalancesRequest, QueryBalanceRequest } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { QuerySmartContractStateRequest } from 'cosmjs-types/cosmwasm/wasm/v1/query';
import { createSimulator } from '../../src/sim/simulator.js';
import type { SimulatorOptions } from '../../src/sim/types.js';
import { createVipSimExtension } from '../../src/sim/vip/mount.js';
import { Digester, every, type SurfaceDigest } from './digest-client.js';
import { bech, evmRest, evmRpc, hex, moveRest, vipRoutes, wasmRest, type Ctx } from './digest-vm.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('heights', 400);
const dumpAt = process.argv.indexOf('--dump');
const dump = dumpAt >= 0 ? process.argv[dumpAt + 1] : undefined;

async function cometRpc(c: Ctx): Promise<void> {
  const { d, urls, heights: n } = c;
  const all = every(1, n, 1).map((h) => ({ height: String(h) }));
  for (const m of ['block', 'block_results', 'header', 'commit', 'validators'])
    await d.batches(`rpc.${m}`, urls.rpc, m, all);
  for (const h of every(1, n, 37)) {
    await d.get('rpc.get', urls.rpc, `/block?height=${h}`);
    await d.get('rpc.get', urls.rpc, `/block_results?height=${h}`);
  }
  for (const p of [
    'status',
    'abci_info',
    'health',
    'genesis',
    'net_info',
    'consensus_params',
    'unconfirmed_txs',
  ])
    await d.get('rpc.node', urls.rpc, `/${p}`);
  await d.get('rpc.node', urls.rpc, '/num_unconfirmed_txs');
  await d.get('rpc.node', urls.rpc, '/genesis_chunked?chunk=0');
  await d.get('rpc.node', urls.rpc, '/check_tx?tx=0x00');
  await d.get('rpc.node', urls.rpc, '/nope');
  for (const h of every(1, n, 20))
    await d.get('rpc.blockchain', urls.rpc, `/blockchain?minHeight=${h}&maxHeight=${Math.min(n, h + 19)}`);
  const blocks = (await d.batches(
    'rpc.block',
    urls.rpc,
    'block',
    every(1, n, 40).map((h) => ({ height: String(h) })),
  )) as Array<{
    block_id: { hash: string };
  }>;
  for (const b of blocks) {
    await d.get('rpc.by_hash', urls.rpc, `/block_by_hash?hash=0x${b.block_id.hash}`);
    await d.get('rpc.by_hash', urls.rpc, `/header_by_hash?hash=0x${b.block_id.hash}`);
  }
  const q = (query: string, extra: Record<string, string> = {}) => ({ query, ...extra });
  const searches = [
    ...every(1, n, 10).map((h) => q(`tx.height=${h}`)),
    q('tx.height>0', { page: '2', per_page: '7', order_by: 'desc' }),
    q(`tx.height>=${n - 30} AND tx.height<=${n}`, { per_page: '100' }),
    q("message.action='/cosmos.bank.v1beta1.MsgSend' AND tx.height<=200"),
    q('tx.height='),
    ...c.accounts.slice(0, 8).map((a) => q(`message.sender='${a}' AND tx.height<=${n}`, { per_page: '100' })),
    ...c.txHashes.slice(0, 10).map((h) => q(`tx.hash='${h}'`)),
  ];
  await d.batches('rpc.tx_search', urls.rpc, 'tx_search', searches, 5);
  await d.batches('rpc.block_search', urls.rpc, 'block_search', [
    q(`block.height>=${n - 30}`, { per_page: '10' }),
    q('block.height>=5 AND block.height<=40', { order_by: 'desc' }),
  ]);
  await d.batches(
    'rpc.tx',
    urls.rpc,
    'tx',
    c.txHashes.filter((_, i) => i % 5 === 0).map((h) => ({ hash: Buffer.from(h, 'hex').toString('base64') })),
  );
  await abciQueries(c);
}

async function abciQueries(c: Ctx): Promise<void> {
  const { d, urls, heights: n } = c;
  const denom = c.sim.truth.denoms()[0]!;
  const calls: Array<{ path: string; data?: string; height?: string }> = [
    { path: '/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo' },
    { path: '/nope.Query/X' },
    { path: '/cosmos.bank.v1beta1.Query/Balance', height: String(n + 1) },
  ];
  for (const [i, address] of c.accounts.slice(0, 10).entries()) {
    const height = String(1 + ((i * 41) % n));
    calls.push({
      path: '/cosmos.auth.v1beta1.Query/Account',
      data: hex(QueryAccountRequest.encode({ address }).finish()),
      height,
    });
    calls.push({
      path: '/cosmos.bank.v1beta1.Query/Balance',
      data: hex(QueryBalanceRequest.encode({ address, denom }).finish()),
    });
    calls.push({
      path: '/cosmos.bank.v1beta1.Query/AllBalances',
      data: hex(QueryAllBalancesRequest.encode({ address, resolveDenom: false }).finish()),
      height,
    });
  }
  if (c.sim.options.vm === 'wasm') {
    for (const col of c.sim.truth.nftCollections(n).slice(0, 6)) {
      const queryData = Buffer.from(JSON.stringify({ num_tokens: {} }));
      calls.push({
        path: '/cosmwasm.wasm.v1.Query/SmartContractState',
        data: hex(QuerySmartContractStateRequest.encode({ address: bech(col.addr), queryData }).finish()),
      });
    }
  }
  await d.batches('rpc.abci_query', urls.rpc, 'abci_query', calls, 10);
}

async function rest(c: Ctx): Promise<void> {
  const { d, urls, heights: n } = c;
  for (const h of every(1, n, 1)) {
    await d.get('rest.blocks', urls.rest, `/cosmos/base/tendermint/v1beta1/blocks/${h}`);
    await d.get('rest.txs_block', urls.rest, `/cosmos/tx/v1beta1/txs/block/${h}`);
  }
  for (const h of every(3, n, 50))
    await d.get(
      'rest.txs_block',
      urls.rest,
      `/cosmos/tx/v1beta1/txs/block/${h}?pagination.offset=1&pagination.limit=2`,
    );
  for (const hash of c.txHashes.filter((_, i) => i % 3 === 0))
    await d.get('rest.txs', urls.rest, `/cosmos/tx/v1beta1/txs/${hash}`);
  await d.get('rest.node', urls.rest, '/cosmos/base/tendermint/v1beta1/blocks/latest');
  await d.get('rest.node', urls.rest, '/cosmos/base/tendermint/v1beta1/node_info');
  await d.get('rest.node', urls.rest, '/cosmos/auth/v1beta1/module_accounts');
  await d.get('rest.node', urls.rest, '/nope');
  for (const h of every(1, n, 57)) {
    const at = { 'x-cosmos-block-height': String(h) };
    await d.get('rest.accounts', urls.rest, '/cosmos/auth/v1beta1/accounts', at);
    for (const a of c.accounts.slice(0, 12)) {
      await d.get('rest.accounts', urls.rest, `/cosmos/auth/v1beta1/accounts/${a}`, at);
      await d.get('rest.balances', urls.rest, `/cosmos/bank/v1beta1/balances/${a}`, at);
    }
  }
  const vm = c.sim.options.vm;
  if (vm === 'move') await moveRest(c);
  if (vm === 'wasm') await wasmRest(c);
  if (vm === 'evm') await evmRest(c);
}

async function truthRoutes(c: Ctx): Promise<void> {
  const { d, urls, heights: n } = c;
  for (const h of every(1, n, 1)) await d.get('truth.block', urls.rest, `/sim/v1/truth/block/${h}`);
  for (const h of every(1, n, 50)) {
    await d.get('truth.nft', urls.rest, `/sim/v1/truth/nft_collections?height=${h}`);
    await d.get('truth.nft', urls.rest, `/sim/v1/truth/nft_tokens?height=${h}`);
  }
  for (const denom of c.sim.truth.denoms())
    for (const h of [n, Math.floor(n / 2)])
      await d.get(
        'truth.holders',
        urls.rest,
        `/sim/v1/truth/holders?denom=${encodeURIComponent(denom)}&height=${h}`,
      );
  for (const h of c.evmHashes)
    await d.get('truth.internal_txs', urls.rest, `/sim/v1/truth/internal_txs/${h}`);
  await d.get('truth.nft', urls.rest, '/sim/v1/truth/nope');
}

async function digest(
  name: string,
  options: SimulatorOptions,
  heights: number,
): Promise<Record<string, SurfaceDigest>> {
  const sim = createSimulator({ rpcPort: 0, restPort: 0, jsonRpcPort: 0, ...options });
  const urls = await sim.listen();
  try {
    const c: Ctx = {
      sim,
      urls,
      d: new Digester(urls, dump && `${dump}/${name}`),
      heights,
      accounts: [],
      txHashes: [],
      evmHashes: [],
    };
    const seen = new Set<string>();
    for (let h = 1; h <= heights; h++)
      for (const tx of sim.truth.block(h).txs) {
        c.txHashes.push(tx.hash);
        if (tx.evmHash) c.evmHashes.push(tx.evmHash);
        for (const a of [tx.signer, ...tx.accounts]) {
          if (!seen.has(a)) c.accounts.push(a);
          seen.add(a);
        }
      }
    await cometRpc(c);
    await rest(c);
    if (options.vm === 'evm') await evmRpc(c);
    await truthRoutes(c);
    if (name.endsWith('+vip')) await vipRoutes(c);
    return c.d.result();
  } finally {
    await sim.close();
  }
}

const t0 = performance.now();
const vip = createVipSimExtension({ vm: 'move', chainId: 'sim-digest-1', now: () => 1_700_000_000_000 });
const configs: Array<[string, SimulatorOptions, number]> = [
  ['move', { vm: 'move', head: N, seed: 11, txsPerBlock: '0-6' }, N],
  ['wasm', { vm: 'wasm', head: N, seed: 12, txsPerBlock: '0-6' }, N],
  ['evm', { vm: 'evm', head: N, seed: 13, txsPerBlock: '0-6' }, N],
  [
    'move+vip',
    { vm: 'move', head: 100, seed: 14, chainId: 'sim-digest-1', extensions: [vip.extension] },
    100,
  ],
];
const vms: Record<string, { surfaces: Record<string, SurfaceDigest>; sha256: string }> = {};
for (const [name, options, heights] of configs) {
  const surfaces = await digest(name, options, heights);
  const all = Object.entries(surfaces)
    .map(([k, v]) => `${k}=${v.sha256}`)
    .join('\n');
  vms[name] = { sha256: createHash('sha256').update(all).digest('hex'), surfaces };
}
console.log(
  JSON.stringify(
    { bench: 'sim-digest', heights: N, seconds: Math.round((performance.now() - t0) / 100) / 10, vms },
    null,
    2,
  ),
);
