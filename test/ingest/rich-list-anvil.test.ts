import { describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/node/evm.js';
import { createIngestMetrics } from '../../src/ingest/metrics.js';
import { createBlockHead } from '../../src/ingest/derive/block-head.js';
import { runDerivation } from '../../src/ingest/derive/runner.js';
import { erc20Deltas, sumDeltas } from '../../src/ingest/collect/rich-list-deltas.js';
import { createEvmBalanceSource } from '../../src/ingest/derive/rich-list-sources.js';
import type { BankState } from '../../src/node/bank-state.js';
import type { CometClient } from '../../src/node/cometbft.js';
import type { AbciEvent, RawBlock } from '../../src/node/types.js';
import { createRichListDerivation } from '../../src/ingest/derive/rich-list.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { anvilTransport, jsonRpc, seedEvmTxs, useAnvilScenario } from '../helpers/anvil-scenario.js';
import { testDbFactories } from '../helpers/db.js';
import { txResult } from '../helpers/nft-blocks.js';
import type { AnvilHandle } from '../vip/anvil.js';

/**
 * The rich-list stage against a real EVM: it runs on anvil's logs (as minievm's `evm` events) of
 * the scenario's ERC20 and ERC721 transfers, with anvil's balanceOf as the node, and stores what
 * balanceOf answers. One anvil scenario for the file: reading the logs involves no store, and the
 * stage, which only reads the node, runs on each store.
 */
describe('The rich-list stage against anvil', () => {
  const scenario = useAnvilScenario();

  it('reads ERC20 balances from the logs exactly as balanceOf answers them', async () => {
    const { anvil, head } = scenario;
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

  it.each(testDbFactories())('on $name stores what balanceOf answers, for every holder', async (factory) => {
    const { anvil, head } = scenario;
    const { db, dispose } = await factory.create();
    const transport = anvilTransport(anvil);
    try {
      await seedEvmTxs(db, anvil, head);
      const evm = createEvmClient(transport);
      const source = createEvmBalanceSource({ evm, bank: noBank, prefix: 'init' });
      const stage = createRichListDerivation({ db, comet: anvilComet(anvil), source });
      const blockHead = createBlockHead(() => head);
      blockHead.finish();
      const deps = {
        db,
        logger: silentLogger(),
        metrics: createIngestMetrics(createMetricsRegistry({ defaultMetrics: false })),
        head: blockHead,
      };
      // One height per batch: a holder touched again later moves by the logs, not by a node read.
      await runDerivation(stage, deps, { signal: new AbortController().signal, batchHeights: 1 });

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
          txResults: receipts.map((r) => txResult(evmEvents(r.logs), r.status === '0x1' ? 0 : 1)),
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
  supplyAt: async () => undefined,
  balancesAt: async () => [],
  balancesOfEach: async () => [],
  contractOfDenom: async () => undefined,
  denomOfContract: async () => undefined,
  denomOfMetadata: async () => undefined,
  moduleAccounts: async () => [],
  fungibleAssetMetadata: async () => undefined,
} as BankState;
