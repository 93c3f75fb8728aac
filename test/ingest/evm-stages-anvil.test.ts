import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createEvmClient } from '../../src/node/evm.js';
import { createNodeMetrics } from '../../src/node/metrics.js';
import { createTransport } from '../../src/node/transport.js';
import { createIngestMetrics } from '../../src/ingest/metrics.js';
import { createBlockHead } from '../../src/ingest/stages/block-head.js';
import { createInternalTxStage } from '../../src/ingest/stages/internal-tx-stage.js';
import { runStage } from '../../src/ingest/stages/runner.js';
import { erc20Deltas, sumDeltas } from '../../src/ingest/collectors/rich-list-deltas.js';
import { createEvmBalanceSource } from '../../src/ingest/stages/rich-list-sources.js';
import type { BankState } from '../../src/node/bank-state.js';
import type { CometClient } from '../../src/node/cometbft.js';
import type { AbciEvent, RawBlock } from '../../src/node/types.js';
import { createRichListStage } from '../../src/ingest/stages/rich-list-stage.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { testDbFactories } from '../helpers/db.js';
import { compileFixture } from '../helpers/solc.js';
import { ANVIL_KEYS, anvilChain, startAnvil, type AnvilHandle } from '../vip/anvil.js';

interface RawFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: RawFrame[];
}

const alice = privateKeyToAccount(ANVIL_KEYS[0]);
const seller = privateKeyToAccount(ANVIL_KEYS[1]).address;

/**
 * The internal-tx stage against a real EVM: contracts compiled by solc run on anvil (nested calls
 * two levels deep, a CREATE in a constructor, value transfers, a revert caught inside a call, a tx
 * reverted from inside a call), and the stored rows equal anvil's own debug_traceBlockByNumber,
 * flattened here independently. The rich-list stage runs on anvil's logs (as minievm's `evm`
 * events) with anvil's balanceOf as the node, and stores what balanceOf answers.
 */
describe.each(testDbFactories())('EVM stages against anvil on $name', (factory) => {
  let anvil: AnvilHandle;
  let head: number;
  beforeAll(async () => {
    anvil = await startAnvil();
    head = await runScenario(anvil);
  }, 120_000);
  afterAll(async () => anvil?.stop());

  it("stores every frame of anvil's traces, depth-first, with its accounts", async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedEvmTxs(db, anvil, head);
      const transport = anvilTransport(anvil);
      const stage = createInternalTxStage({ db, evm: createEvmClient(transport), accountPrefix: 'init' });
      const blockHead = createBlockHead(() => head);
      blockHead.finish();
      await runStage(
        stage,
        {
          db,
          logger: silentLogger(),
          metrics: createIngestMetrics(createMetricsRegistry({ defaultMetrics: false })),
          head: blockHead,
        },
        { signal: new AbortController().signal, batchHeights: 3 },
      );
      await transport.close();

      const { frames: expected, failures } = await anvilFrames(anvil, head);
      const { rows } = await db.query<{
        sequence: number;
        data: string;
        error: string | null;
        revert_reason: string | null;
      }>('SELECT sequence, data, error, revert_reason FROM evm_internal_tx ORDER BY sequence');
      expect(rows.map((r) => r.sequence)).toEqual(expected.map((_, i) => i + 1));
      expect(rows.map((r) => JSON.parse(r.data) as unknown)).toEqual(expected);
      // Each frame's failure is stored as anvil's tracer reported it, reverted frames included.
      expect(rows.map((r) => ({ error: r.error, revertReason: r.revert_reason }))).toEqual(failures);
      expect(failures.filter((f) => f.error === 'execution reverted').length).toBeGreaterThanOrEqual(2);

      // The shapes the scenario was written to produce are all there.
      const types = new Set(expected.map((f) => f.type));
      expect(types).toEqual(new Set(['CREATE', 'CALL']));
      expect(expected.some((f) => f.type === 'CREATE' && f.parent_index === 0)).toBe(true);
      const depth = (f: (typeof expected)[number]): number => {
        const parent = expected.find((p) => p.hash === f.hash && p.index === f.parent_index);
        return parent ? 1 + depth(parent) : 0;
      };
      expect(Math.max(...expected.map(depth))).toBe(2);
      expect(expected.some((f) => f.value !== '0x' && f.value !== '0x00' && f.parent_index === 0)).toBe(true);
      // The tx reverted from inside a call is stored like any other (its frames ran, then reverted).
      const receipts = (await jsonRpc(anvil, 'eth_getBlockReceipts', ['0x' + head.toString(16)])) as Array<{
        transactionHash: string;
        status: string;
      }>;
      const reverted = receipts.filter((r) => r.status === '0x0').map((r) => r.transactionHash);
      expect(reverted).toHaveLength(1);
      expect(expected.filter((f) => f.hash === reverted[0]).length).toBeGreaterThan(1);
      const edges = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM evm_internal_tx_accounts');
      expect(edges.rows[0]!.n).toBe(
        expected.reduce((n, f) => n + new Set([f.from, f.to].filter(Boolean)).size, 0),
      );
      const checkpoint = await db.query<{ height: number; tx_sequence: number }>(
        "SELECT height, tx_sequence FROM checkpoint WHERE stream = 'internal_tx'",
      );
      expect(checkpoint.rows[0]).toEqual({ height: head, tx_sequence: expected.length });
    } finally {
      await dispose();
    }
  });
  it('reads ERC20 balances from the logs exactly as balanceOf answers them', async () => {
    const receipts = [];
    for (let h = 1; h <= head; h++) {
      receipts.push(
        ...((await jsonRpc(anvil, 'eth_getBlockReceipts', ['0x' + h.toString(16)])) as Array<{
          logs: Array<{ address: string; topics: string[]; data: string }>;
        }>),
      );
    }
    const events = receipts.flatMap((r) => evmEvents(r.logs));
    expect(events.some((e) => JSON.parse(e.attributes[0]!.value).topics.length === 4)).toBe(true);
    const sums = [...sumDeltas(erc20Deltas(events)).values()];
    expect(sums.length).toBeGreaterThanOrEqual(3); // alice, the relay, the seller
    const transport = anvilTransport(anvil);
    const source = createEvmBalanceSource({
      evm: createEvmClient(transport),
      bank: noBank, // the snapshot is not used here
      prefix: 'init',
    });
    const onChain = await source.balancesAt(sums, head);
    await transport.close();
    expect(sums.map((d) => d.amount)).toEqual(onChain);
    expect(onChain.some((a) => a === 0n)).toBe(true); // the relay passed everything on
  });

  it('runs the rich_list stage on anvil: what it stores is what balanceOf answers, for every holder', async () => {
    const { db, dispose } = await factory.create();
    const transport = anvilTransport(anvil);
    try {
      await seedEvmTxs(db, anvil, head);
      const evm = createEvmClient(transport);
      const source = createEvmBalanceSource({ evm, bank: noBank, prefix: 'init' });
      const stage = createRichListStage({ db, comet: anvilComet(anvil), source });
      const blockHead = createBlockHead(() => head);
      blockHead.finish();
      const deps = {
        db,
        logger: silentLogger(),
        metrics: createIngestMetrics(createMetricsRegistry({ defaultMetrics: false })),
        head: blockHead,
      };
      // One height per batch: a holder touched again later moves by the logs, not by a node read.
      await runStage(stage, deps, { signal: new AbortController().signal, batchHeights: 1 });

      // Every ERC20 holder in anvil's logs (three topics; ERC721 Transfers have four), read here.
      const holders = new Map<string, { token: string; account: string }>();
      for (let h = 1; h <= head; h++) {
        const receipts = (await jsonRpc(anvil, 'eth_getBlockReceipts', ['0x' + h.toString(16)])) as Array<{
          logs: AnvilLog[];
        }>;
        for (const l of receipts.flatMap((r) => r.logs)) {
          if (l.topics[0] !== TRANSFER_TOPIC || l.topics.length !== 3) continue;
          for (const topic of l.topics.slice(1)) {
            const account = topic.slice(-40);
            if (/^0+$/.test(account)) continue; // a mint or a burn
            const token = l.address.toLowerCase();
            holders.set(`${token}|${account}`, { token, account });
          }
        }
      }
      expect(holders.size).toBeGreaterThanOrEqual(3);
      const onChain = new Map<string, bigint>();
      for (const [key, { token, account }] of holders) {
        const answer = await jsonRpc(anvil, 'eth_call', [
          { to: token, data: '0x70a08231' + account.padStart(64, '0') },
          '0x' + head.toString(16),
        ]);
        onChain.set(key, BigInt(answer as string));
      }
      const { rows } = await db.query<{ denom: string; account: Uint8Array; amount: string }>(
        `SELECT r.denom, d.account, r.amount::text AS amount FROM rich_list r
           JOIN account_dict d ON d.id = r.account_id`,
      );
      const stored = new Map(
        rows.map((r) => [`${r.denom}|${Buffer.from(r.account).toString('hex')}`, BigInt(r.amount)]),
      );
      // Each holder's stored balance is anvil's (an absent row is zero), and nothing else is stored.
      expect(new Map([...holders.keys()].map((k) => [k, stored.get(k) ?? 0n]))).toEqual(onChain);
      expect([...stored.keys()].filter((k) => !holders.has(k))).toEqual([]);
      expect([...onChain.values()].some((a) => a > 0n)).toBe(true);
      expect([...onChain.values()].some((a) => a === 0n)).toBe(true);
      const checkpoint = await db.query<{ height: number }>(
        "SELECT height FROM checkpoint WHERE stream = 'rich_list'",
      );
      expect(checkpoint.rows[0]?.height).toBe(head);
    } finally {
      await transport.close();
      await dispose();
    }
  });
});

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

interface AnvilLog {
  address: string;
  topics: string[];
  data: string;
}

/** minievm puts each log in an `evm` event's `log` attribute; ERC721 Transfers are among them. */
const evmEvents = (logs: readonly AnvilLog[]): AbciEvent[] =>
  logs.map((l) => ({
    type: 'evm',
    attributes: [
      {
        key: 'log',
        value: JSON.stringify({ address: l.address, topics: l.topics, data: l.data }),
        index: false,
      },
    ],
  }));

/**
 * The CometBFT side of a minievm node, made from anvil's receipts: each block's txs with their
 * logs as `evm` events (what the rich-list stage reads from /block_results). Nothing else of a
 * block is read by that stage.
 */
const anvilComet = (anvil: AnvilHandle): CometClient => ({
  status: () => Promise.reject(new Error('not used by the rich-list stage')),
  fetchBlocks: (heights) =>
    Promise.all(
      heights.map(async (height): Promise<RawBlock> => {
        const receipts = (await jsonRpc(anvil, 'eth_getBlockReceipts', [
          '0x' + height.toString(16),
        ])) as Array<{
          status: string;
          logs: AnvilLog[];
        }>;
        return {
          height,
          chainId: 'anvil',
          hash: '00',
          time: '',
          proposerAddress: '',
          txs: [],
          txResults: receipts.map((r) => ({
            code: r.status === '0x1' ? 0 : 1,
            codespace: '',
            log: '',
            info: '',
            data: '',
            gasWanted: '0',
            gasUsed: '0',
            events: evmEvents(r.logs),
          })),
          finalizeBlockEvents: [],
        };
      }),
    ),
});

/**
 * anvil has no Cosmos bank: no accounts to snapshot (no ERC20 exists at the first height either,
 * so the start is genuinely empty) and no bank denoms for the contracts. These are the bank reads
 * the EVM balance source makes; the cast keeps reads other VMs need out of this stub.
 */
const noBank = {
  accountsAt: async () => [],
  balancesAt: async () => [],
  contractOfDenom: async () => undefined,
  denomOfContract: async () => undefined,
  denomOfMetadata: async () => undefined,
  moduleAccounts: async () => [],
  fungibleAssetMetadata: async () => undefined,
} as BankState;

const anvilTransport = (anvil: AnvilHandle) =>
  createTransport({
    name: 'jsonrpc',
    endpoints: [anvil.url],
    timeoutMs: 10_000,
    maxConcurrent: 4,
    metrics: createNodeMetrics(createMetricsRegistry({ defaultMetrics: false })),
  });

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
async function seedEvmTxs(db: import('../../src/store/db.js').Db, anvil: AnvilHandle, head: number) {
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

/** anvil's traces of heights 2..head, flattened pre-order into the API's JSON (spec/api.md §5.4). */
async function anvilFrames(anvil: AnvilHandle, head: number) {
  const even = (hex = '0x') => '0x' + (hex.length % 2 ? '0' : '') + hex.slice(2).toLowerCase();
  const out: Array<
    Record<string, unknown> & {
      hash: string;
      index: number;
      parent_index: number;
      type: string;
      value: string;
    }
  > = [];
  const failures: Array<{ error: string | null; revertReason: string | null }> = [];
  for (let h = 2; h <= head; h++) {
    const traces = (await jsonRpc(anvil, 'debug_traceBlockByNumber', [
      '0x' + h.toString(16),
      { tracer: 'callTracer' },
    ])) as Array<{
      txHash: string;
      result: RawFrame;
    }>;
    for (const t of traces) {
      let index = 0;
      const visit = (f: RawFrame, parent: number) => {
        const mine = index++;
        out.push({
          height: h,
          hash: t.txHash,
          parent_index: parent,
          index: mine,
          type: f.type,
          from: f.from.toLowerCase(),
          to: (f.to ?? '').toLowerCase(),
          input: even(f.input),
          output: mine === 0 ? '0x' : even(f.output),
          value: even(f.value),
          gas: even(f.gas),
          gasUsed: even(f.gasUsed),
        });
        failures.push({ error: f.error || null, revertReason: f.revertReason || null });
        for (const c of f.calls ?? []) visit(c, mine);
      };
      visit(t.result, -1);
    }
  }
  return { frames: out, failures };
}

async function jsonRpc(anvil: AnvilHandle, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
