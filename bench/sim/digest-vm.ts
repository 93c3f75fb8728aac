/** The VM-specific requests of `bench/sim/digest.ts` (state routes, EVM JSON-RPC, `--vip`). */
import type { Simulator, SimulatorUrls } from '../../src/sim/types.js';
import { TESTNET_VIP_PACKAGE } from '../../src/sim/vip/mount.js';
import { accountBytesFromString, toBech32 } from '../../src/shared/address.js';
import { every, type Digester } from './digest-client.js';

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const b64url = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64');
export const bech = (addr0x: string): string => toBech32(Buffer.from(addr0x.slice(2), 'hex'), 'init');

export interface Ctx {
  sim: Simulator;
  urls: SimulatorUrls;
  d: Digester;
  heights: number;
  /** A few signers and accounts seen in the txs, in first-seen order. */
  accounts: string[];
  txHashes: string[];
  evmHashes: string[];
}

export async function moveRest(c: Ctx): Promise<void> {
  const { d, urls, heights: n } = c;
  const tags = [
    '0x1::nft::Nft',
    '0x1::collection::Collection',
    '0x1::object::ObjectCore',
    '0x1::fungible_asset::Metadata',
  ];
  for (const h of [n, Math.floor(n / 2)]) {
    const objects = [
      ...c.sim.truth.nftCollections(h).map((x) => x.addr),
      ...c.sim.truth
        .nftTokens(h)
        .slice(0, 40)
        .map((t) => t.collectionAddr),
    ];
    for (const o of new Set(objects))
      for (const tag of tags)
        await d.get(
          'rest.move',
          urls.rest,
          `/initia/move/v1/accounts/${o}/resources/by_struct_tag?struct_tag=${tag}`,
          { 'x-cosmos-block-height': String(h) },
        );
  }
  // Every 32-byte account the txs name (NFT objects, collections, …) at heights before, during and
  // after their lifecycles: a token not minted yet, live, transferred, re-minted or burnt.
  const objects = new Set<string>();
  for (let h = 1; h <= n; h++)
    for (const tx of c.sim.truth.block(h).txs)
      for (const a of tx.accounts) if (accountBytesFromString(a, 'init').length === 32) objects.add(a);
  for (const h of [Math.floor(n / 4), Math.floor(n / 2), Math.floor((3 * n) / 4), n])
    for (const o of objects)
      for (const tag of ['0x1::nft::Nft', '0x1::object::ObjectCore'])
        await d.get(
          'rest.move.objects',
          urls.rest,
          `/initia/move/v1/accounts/${o}/resources/by_struct_tag?struct_tag=${tag}`,
          { 'x-cosmos-block-height': String(h) },
        );
  await d.get('rest.move', urls.rest, '/initia/move/v1/denom?metadata=init1xyz');
}

export async function wasmRest(c: Ctx): Promise<void> {
  const { d, urls, heights: n } = c;
  for (const h of [n, Math.floor(n / 2)]) {
    const at = { 'x-cosmos-block-height': String(h) };
    for (const col of c.sim.truth.nftCollections(h)) {
      const a = bech(col.addr);
      await d.get('rest.wasm', urls.rest, `/cosmwasm/wasm/v1/contract/${a}`, at);
      for (const q of [{ contract_info: {} }, { num_tokens: {} }, { nope: {} }])
        await d.get('rest.wasm', urls.rest, `/cosmwasm/wasm/v1/contract/${a}/smart/${b64url(q)}`, at);
    }
    for (const t of c.sim.truth.nftTokens(h).slice(0, 40)) {
      const a = bech(t.collectionAddr);
      for (const q of [{ nft_info: { token_id: t.tokenId } }, { owner_of: { token_id: t.tokenId } }])
        await d.get('rest.wasm', urls.rest, `/cosmwasm/wasm/v1/contract/${a}/smart/${b64url(q)}`, at);
    }
    for (const denom of c.sim.truth.denoms().filter((x) => x.startsWith('cw20:'))) {
      const a = denom.slice(5);
      await d.get(
        'rest.wasm',
        urls.rest,
        `/cosmwasm/wasm/v1/contract/${a}/smart/${b64url({ token_info: {} })}`,
        at,
      );
      for (const acc of c.accounts.slice(0, 6))
        await d.get(
          'rest.wasm',
          urls.rest,
          `/cosmwasm/wasm/v1/contract/${a}/smart/${b64url({ balance: { address: acc } })}`,
          at,
        );
    }
  }
}

export async function evmRest(c: Ctx): Promise<void> {
  const { d, urls, heights: n } = c;
  const tokens: string[] = [];
  for (const denom of c.sim.truth.denoms()) {
    const text = await d.get('rest.evm', urls.rest, `/minievm/evm/v1/contracts/by_denom?denom=${denom}`);
    const address = (JSON.parse(text) as { address?: string }).address;
    if (address) tokens.push(address);
  }
  for (const t of tokens) await d.get('rest.evm', urls.rest, `/minievm/evm/v1/denoms/${t}`);
  const holders = c.sim.truth.holders(c.sim.truth.denoms()[0]!, n).slice(0, 8);
  for (const t of tokens)
    for (const holder of holders) {
      const word = hex(accountBytesFromString(holder.account, 'init')).padStart(64, '0');
      await d.post('rest.evm_call', urls.rest, '/minievm/evm/v1/call', {
        contract_addr: t,
        input: '0x70a08231' + word,
      });
    }
  for (const col of c.sim.truth.nftCollections(n).slice(0, 10)) {
    await d.post('rest.evm_call', urls.rest, '/minievm/evm/v1/call', {
      contract_addr: col.addr,
      input: '0x06fdde03',
    });
    await d.post('rest.evm_call', urls.rest, '/minievm/evm/v1/call', {
      contract_addr: col.addr,
      input: '0x18160ddd',
    });
  }
}

export async function evmRpc(c: Ctx): Promise<void> {
  const { d, urls, heights: n } = c;
  const base = urls.jsonRpc!;
  const hx = (h: number): string => '0x' + h.toString(16);
  await d.batches('evm.node', base, 'eth_chainId', [[]]);
  await d.batches('evm.node', base, 'eth_blockNumber', [[]]);
  await d.batches('evm.node', base, 'net_version', [[]]);
  await d.batches(
    'evm.getBlockByNumber',
    base,
    'eth_getBlockByNumber',
    every(1, n, 1).map((h) => [hx(h), true]),
  );
  await d.batches(
    'evm.getBlockByNumber',
    base,
    'eth_getBlockByNumber',
    every(1, n, 13).map((h) => [hx(h), false]),
  );
  await d.batches(
    'evm.getBlockReceipts',
    base,
    'eth_getBlockReceipts',
    every(1, n, 1).map((h) => [hx(h)]),
  );
  await d.batches(
    'evm.traceBlock',
    base,
    'debug_traceBlockByNumber',
    every(1, n, 1).map((h) => [hx(h), { tracer: 'callTracer' }]),
    10,
  );
  const some = c.evmHashes.filter((_, i) => i % 4 === 0);
  const perTx: Array<[string, (hash: string) => unknown[]]> = [
    ['eth_getTransactionByHash', (h) => [h]],
    ['eth_getTransactionReceipt', (h) => [h]],
    ['debug_traceTransaction', (h) => [h, { tracer: 'callTracer' }]],
    ['cosmos_cosmosTxHashByTxHash', (h) => [h]],
  ];
  for (const [method, params] of perTx) await d.batches('evm.tx', base, method, some.map(params));
  await d.batches(
    'evm.tx',
    base,
    'cosmos_txHashByCosmosTxHash',
    c.txHashes.filter((_, i) => i % 4 === 0).map((h) => ['0x' + h.toLowerCase()]),
  );
  const nfts = c.sim.truth.nftTokens(n).slice(0, 20);
  await d.batches(
    'evm.call',
    base,
    'eth_call',
    nfts.map((t) => [
      { to: t.collectionAddr, data: '0xc87b56dd' + BigInt(t.tokenId).toString(16).padStart(64, '0') },
      'latest',
    ]),
  );
  await d.batches(
    'evm.call',
    base,
    'eth_call',
    nfts.map((t) => [{ to: t.collectionAddr, data: '0x06fdde03' }, hx(Math.floor(n / 2))]),
  );
}

export async function vipRoutes(c: Ctx): Promise<void> {
  const { d, urls } = c;
  for (const a of c.accounts.slice(0, 3)) await d.get('vip', urls.rest, `/cosmos/auth/v1beta1/accounts/${a}`);
  await d.get('vip', urls.rest, '/opinit/opchild/v1/params');
  await d.get(
    'vip',
    urls.rest,
    `/initia/move/v1/accounts/${TESTNET_VIP_PACKAGE}/resources/by_struct_tag?struct_tag=${TESTNET_VIP_PACKAGE}::vip::ModuleStore`,
  );
  await d.batches('vip', urls.rpc, 'broadcast_tx_sync', [{ tx: 'AA==' }]);
  await d.batches('vip', urls.rpc, 'abci_info', [{}]);
}
