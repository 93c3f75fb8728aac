import type {
  BlockTruth,
  NftCollectionTruth,
  NftTokenTruth,
  TxTruth,
  VmType,
} from '../../../src/sim/types.js';
import { nftOpAt, parseNftShare, type NftPlanContext } from '../../../src/sim/chain/nft-lifecycle.js';
import { testDbFactories } from '../../helpers/db.js';
import { indexSimulator, type IndexedSimulator } from '../../helpers/ingest.js';
import { createHarness, type ApiAnswer } from '../harness.js';

/**
 * One simulator chain per VM, indexed by the real ingest pipeline and served by the real API,
 * shared by every client-contract test of that VM. Only one database kind: PostgreSQL when
 * TEST_DATABASE_URL is set (what CI and production run), PGlite otherwise; the other variants
 * of these routes are walked by the e2e suites.
 */
export const HEAD = 80;
/**
 * Four accounts and three txs in four NFT operations: busy accounts and owners with more NFTs
 * than the page sizes the clients ask for (10, 9), so their "load more" runs.
 */
const ACCOUNTS = 4;
const NFT_SHARE = 0.75;
/** The simulated chain every client-contract test of a VM reads (chain id, workload). */
export const clientChainSpec = (vm: VmType) => ({
  chainId: `clients-${vm}-1`,
  txsPerBlock: '0-4',
  sim: { accounts: ACCOUNTS, nftShare: NFT_SHARE },
});

/**
 * How the contract tests reach the API: the single-chain app in-process (createHarness), or a
 * deployment's `/chains/{chain_id}` base over HTTP (clients-deployment.ts). Every 200 JSON answer
 * is validated against the served OpenAPI document either way.
 */
export interface ClientApi {
  get(url: string, headers?: Record<string, string>): Promise<ApiAnswer>;
  /** Any method (a browser's preflight): the status and the headers. */
  request(
    method: 'GET' | 'OPTIONS',
    url: string,
    headers: Record<string, string>,
  ): Promise<Pick<ApiAnswer, 'status' | 'headers'>>;
}

export interface ClientChain {
  vm: VmType;
  h: ClientApi;
  indexed: IndexedSimulator;
  blocks: BlockTruth[];
  /** Chain order (= sequence order). */
  txs: TxTruth[];
  /**
   * The accounts whose pages are walked, bech32: every signer (the wallets) and the four busiest
   * accounts that never sign (contracts, objects, module accounts).
   */
  accounts: string[];
  /** One tx of each kind (message types, success or failure) and every tenth: the detail pages opened. */
  sampleTxs: TxTruth[];
  collections: NftCollectionTruth[];
  tokens: NftTokenTruth[];
  /** EVM: each Cosmos tx's Ethereum hash, as the node's JSON-RPC maps it (empty elsewhere). */
  evmHashes: Map<string, string>;
  close(): Promise<void>;
}

export async function ingestClientChain(vm: VmType): Promise<ClientChain> {
  const factory = testDbFactories().at(-1)!;
  const spec = clientChainSpec(vm);
  const h = await createHarness(factory, { vm, blocks: 0, seed: false, env: { CHAIN_ID: spec.chainId } });
  try {
    const indexed = await indexSimulator({
      db: h.db,
      vm,
      head: HEAD,
      txsPerBlock: spec.txsPerBlock,
      sim: { chainId: spec.chainId, ...spec.sim },
    });
    const api: ClientApi = {
      get: (url, headers) => h.get(url, headers),
      async request(method, url, headers) {
        const res = await h.app.inject({ method, url, headers });
        return { status: res.statusCode, headers: res.headers };
      },
    };
    return await clientChainOf(vm, api, indexed, h.dispose);
  } catch (err) {
    await h.dispose();
    throw err;
  }
}

/** The chain's truth beside the API that serves it; `dispose` runs after the simulator closed. */
export async function clientChainOf(
  vm: VmType,
  h: ClientApi,
  indexed: IndexedSimulator,
  dispose: () => Promise<void>,
): Promise<ClientChain> {
  const blocks = Array.from({ length: HEAD }, (_, i) => indexed.sim.truth.block(i + 1));
  const txs = blocks.flatMap((b) => b.txs);
  return {
    vm,
    h,
    indexed,
    blocks,
    txs,
    accounts: accountsToWalk(txs),
    sampleTxs: sampleOf(txs),
    collections: indexed.sim.truth.nftCollections(HEAD),
    tokens: indexed.sim.truth.nftTokens(HEAD),
    evmHashes: vm === 'evm' ? await evmHashesOf(indexed.urls.jsonRpc ?? '', txs) : new Map(),
    async close() {
      await indexed.close();
      await dispose();
    },
  };
}

function accountsToWalk(txs: TxTruth[]): string[] {
  const signers = new Set(txs.map((t) => t.signer));
  const counts = new Map<string, number>();
  for (const account of txs.flatMap((t) => t.accounts)) {
    if (!signers.has(account)) counts.set(account, (counts.get(account) ?? 0) + 1);
  }
  const busiest = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 4);
  return [...signers, ...busiest.map(([account]) => account)].sort();
}

function sampleOf(txs: TxTruth[]): TxTruth[] {
  const kinds = new Set<string>();
  return txs.filter((t, i) => {
    const kind = `${t.msgTypes.join(',')}/${t.success}`;
    const first = !kinds.has(kind);
    kinds.add(kind);
    return first || i % 10 === 0;
  });
}

/** cosmos_txHashByCosmosTxHash for every tx, in one JSON-RPC batch (the call Celatone makes). */
async function evmHashesOf(jsonRpc: string, txs: TxTruth[]): Promise<Map<string, string>> {
  const batch = txs.map((t, id) => ({
    jsonrpc: '2.0',
    id,
    method: 'cosmos_txHashByCosmosTxHash',
    params: [t.hash],
  }));
  const res = await fetch(jsonRpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(batch),
  });
  const answers = (await res.json()) as { id: number; result: string | null }[];
  const hashes = new Map<string, string>();
  for (const { id, result } of answers) if (result) hashes.set(txs[id]!.hash, result);
  return hashes;
}

export interface NftOpTruth {
  hash: string;
  kind: 'create-collection' | 'mint' | 'transfer' | 'mutate-uri' | 'burn' | 'ibc-receive' | 'offer';
  /** Offers (Move): the object the tx names, which is in its accounts (TxTruth.nftMentions). */
  objectAddr?: string;
}

/**
 * The simulator's own NFT plan, tx by tx (the closed-form lifecycle, not the indexer's rows):
 * the txs that operated on each token (key `collection/tokenId`, oldest first, a burnt and
 * re-minted id keeping its old history), the Move offers that name it, and the tx that created
 * each collection.
 */
export function nftPlanHistory(chain: ClientChain): {
  tokens: Map<string, NftOpTruth[]>;
  created: Map<string, string>;
} {
  const plan: NftPlanContext = {
    seed: chain.indexed.sim.options.seed,
    accounts: ACCOUNTS,
    uriMutation: chain.vm === 'move',
    share: parseNftShare(NFT_SHARE),
  };
  const ibc = chain.collections.find((c) => c.originName !== '');
  const addrOf = (collection: number) =>
    chain.collections.find((c) => c.name === `Sim Collection ${collection}`)?.addr ?? '';
  const tokens = new Map<string, NftOpTruth[]>();
  const created = new Map<string, string>();
  chain.txs.forEach((tx, g) => {
    for (const m of tx.nftMentions ?? []) {
      const key = `${m.collectionAddr}/${m.tokenId}`;
      tokens.set(key, [
        ...(tokens.get(key) ?? []),
        { hash: tx.hash, kind: 'offer', objectAddr: m.objectAddr },
      ]);
    }
    const op = nftOpAt(plan, g);
    if (!op) return;
    if (op.kind === 'create-collection') {
      created.set(addrOf(op.collection), tx.hash);
      return;
    }
    // A Move transfer to the current owner emits nothing naming the token (object::transfer returns early).
    if (chain.vm === 'move' && op.kind === 'transfer' && op.from === op.to) return;
    const addr = op.kind === 'ibc-receive' ? (ibc?.addr ?? '') : addrOf(op.collection);
    const key = `${addr}/${op.tokenId}`;
    tokens.set(key, [...(tokens.get(key) ?? []), { hash: tx.hash, kind: op.kind }]);
  });
  return { tokens, created };
}
