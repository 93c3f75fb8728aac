import { afterAll, beforeAll } from 'vitest';
import { createPublicClient, createWalletClient, http, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createNodeMetrics } from '../../src/node/metrics.js';
import { createTransport } from '../../src/node/transport.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import type { Db } from '../../src/store/driver/db.js';
import { ANVIL_KEYS, anvilChain, startAnvil, type AnvilHandle } from '../vip/anvil.js';
import { compileFixture } from './solc.js';

const alice = privateKeyToAccount(ANVIL_KEYS[0]);
const seller = privateKeyToAccount(ANVIL_KEYS[1]).address;

/** A JSON-RPC transport to anvil, as ingest's EVM client uses. */
export const anvilTransport = (anvil: AnvilHandle) =>
  createTransport({
    name: 'jsonrpc',
    endpoints: [anvil.url],
    timeoutMs: 10_000,
    maxConcurrent: 4,
    metrics: createNodeMetrics(createMetricsRegistry({ defaultMetrics: false })),
  });

/**
 * A fresh anvil for the calling `describe`, holding the EVM stages' scenario shared by the
 * internal-tx and rich-list tests: contracts compiled by solc (TraceScenario.sol) with nested
 * calls, a CREATE in a constructor, value transfers, ERC20 and ERC721 transfers, a revert caught
 * inside a call and a tx reverted from inside a call. `head` is the scenario's last block; both
 * are read inside the tests (the hooks fill them in).
 */
export function useAnvilScenario(): { readonly anvil: AnvilHandle; readonly head: number } {
  let started: { anvil: AnvilHandle; head: number } | undefined;
  let anvil: AnvilHandle | undefined;
  beforeAll(async () => {
    anvil = await startAnvil();
    started = { anvil, head: await runScenario(anvil) };
  }, 120_000);
  afterAll(async () => anvil?.stop());
  const get = () => {
    if (!started) throw new Error('the anvil scenario did not start');
    return started;
  };
  return {
    get anvil() {
      return get().anvil;
    },
    get head() {
      return get().head;
    },
  };
}

/** Deploys the contracts and sends the scenario's txs; returns the last block. */
async function runScenario(anvil: AnvilHandle): Promise<number> {
  const contracts = await compileFixture('TraceScenario.sol');
  const chain = anvilChain(anvil);
  const pub = createPublicClient({ chain, transport: http(anvil.url) });
  const wallet = createWalletClient({ chain, transport: http(anvil.url), account: alice });
  const rpc = (method: string, params: unknown[] = []) => pub.request({ method, params } as never);
  // Height 1 is left empty: a minievm node cannot trace below 2, so the stage never asks for it.
  await rpc('evm_mine');
  const deploy = async (name: string, args: unknown[] = []) => {
    const c = contracts[name]!;
    const hash = await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args });
    return (await pub.waitForTransactionReceipt({ hash })).contractAddress!;
  };
  const token = await deploy('Token');
  const nft = await deploy('Collectible');
  const router = await deploy('Router', [token, nft]);
  const call = async (to: Hex, abi: Abi, functionName: string, args: unknown[], extra: object = {}) =>
    wallet.writeContract({ address: to, abi, functionName, args, ...extra } as never);
  const tokenAbi = contracts.Token!.abi;
  const routerAbi = contracts.Router!.abi;
  await pub.waitForTransactionReceipt({ hash: await call(token, tokenAbi, 'mint', [alice.address, 1000n]) });
  await pub.waitForTransactionReceipt({ hash: await call(token, tokenAbi, 'approve', [router, 500n]) });
  // Several txs in one block: the stream numbers frames across a block's txs.
  await rpc('evm_setAutomine', [false]);
  const gas = { gas: 500_000n };
  await call(router, routerAbi, 'buy', [7n, 100n, seller], { value: 12345n, ...gas });
  await call(router, routerAbi, 'tryBurn', [7n], gas);
  await call(router, routerAbi, 'failing', [], gas);
  await call(token, tokenAbi, 'transfer', [alice.address, 1n], gas);
  await call(token, tokenAbi, 'burn', [5n], gas);
  await call(token, tokenAbi, 'mint', [seller, 77n], gas);
  await wallet.sendTransaction({ to: seller, value: 1n, gas: 21_000n });
  await rpc('evm_mine');
  await rpc('evm_setAutomine', [true]);
  // viem caches the block number for seconds; ask the node.
  return Number(await pub.getBlockNumber({ cacheTime: 0 }));
}

/** evm_tx rows for anvil's txs: the stage traces the heights that hold EVM txs. */
export async function seedEvmTxs(db: Db, anvil: AnvilHandle, head: number) {
  let sequence = 0;
  for (let h = 1; h <= head; h++) {
    const receipts = (await jsonRpc(anvil, 'eth_getBlockReceipts', ['0x' + h.toString(16)])) as Array<{
      transactionHash: string;
    }>;
    for (const r of receipts) {
      await db.query(
        'INSERT INTO evm_tx (sequence, hash, height, signer_id, data) VALUES ($1, $2, $3, 0, $4)',
        [++sequence, Buffer.from(r.transactionHash.slice(2), 'hex'), h, '{}'],
      );
    }
  }
  await db.query(
    'INSERT INTO block (height, hash, "timestamp", block_time_ms, proposer, gas_used, gas_wanted, tx_count, total_fee) VALUES (1, $1, now(), 0, $2, 0, 0, 0, $3)',
    [Buffer.alloc(32), '', '[]'],
  );
}

/** One JSON-RPC call to anvil, straight (not through the code under test). */
export async function jsonRpc(anvil: AnvilHandle, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
