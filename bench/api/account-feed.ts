/**
 * The account feed's first page (docs/chains.md §4.1): 10 items for an account active on every
 * chain of a deployment, against one chain's `/txs/by_account` page and against the wallet's way
 * (one `by_account` request per chain, in parallel, merged in the client), and the feed route
 * on one chain (`chain_ids`) beside that chain's `by_account`. The cases are timed in turn, round
 * by round. Prints JSON, with the 1-minute load average at the end.
 *
 *   npm run bench:account-feed -- [--chains 3|8] [--head 200] [--requests 300]
 *
 * Chains: simulated rollups sharing one keyring (3: Move, Wasm, EVM; 8: 3 Move, 3 EVM, 2 Wasm) in
 * one deployment in this process, on BENCH_DATABASE_URL (PostgreSQL) when set, else PGlite.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import {
  startTestDeployment,
  type DeploymentChainSpec,
  type TestDeployment,
} from '../../test/helpers/deployment.js';
import type { VmType } from '../../src/sim/types.js';

const { values } = parseArgs({
  options: {
    chains: { type: 'string', default: '3' },
    head: { type: 'string', default: '200' },
    requests: { type: 'string', default: '300' },
  },
});
const chainCount = Number(values.chains);
const head = Number(values.head);
const requests = Number(values.requests);
const VMS: Record<number, VmType[]> = {
  3: ['move', 'wasm', 'evm'],
  8: ['move', 'move', 'move', 'evm', 'evm', 'evm', 'wasm', 'wasm'],
};
const vms = VMS[chainCount];
if (!vms) throw new Error('--chains must be 3 or 8');

const specs: DeploymentChainSpec[] = vms.map((vm, i) => ({
  vm,
  chainId: `bench-${vm}-${i + 1}`,
  head,
  txsPerBlock: '2-6',
  sim: { seed: 100 + i, keyringSeed: 7, accounts: 8, fastSignatures: true },
}));

function quantiles(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Number(s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(2));
  return { p50_ms: at(0.5), p99_ms: at(0.99), n: s.length };
}

/**
 * Times every case once per round, the cases in turn, so a host whose load drifts (a shared CI
 * machine) weighs on each case alike; 30 rounds of warm-up first.
 */
async function timeInTurn(cases: Record<string, () => Promise<void>>): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let round = 0; round < 30 + requests; round++) {
    for (const [name, run] of Object.entries(cases)) {
      const t0 = performance.now();
      await run();
      if (round >= 30) out[name]!.push(performance.now() - t0);
    }
  }
  return out;
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return res.json();
}

/** Waits for every chain's head; a poll whose idle keep-alive socket the server closed is retried. */
async function untilIndexed(d: TestDeployment): Promise<void> {
  for (;;) {
    try {
      return await d.untilIndexed();
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
    }
  }
}

async function main() {
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const db = pgUrl ? await createPostgresTestDb(pgUrl, { migrate: false }) : undefined;
  const d = await startTestDeployment({ chains: specs, ...(db ? { databaseUrl: db.url } : {}) });
  try {
    await untilIndexed(d);
    const first = specs[0]!.chainId;
    const accounts = d.sims
      .get(first)!
      .sim.truth.block(1)
      .txs.map((t) => t.signer);
    const account = accounts[0]!;
    const byAccount = (chainId: string) =>
      `${d.url}/chains/${chainId}/indexer/tx/v1/txs/by_account/${account}?pagination.limit=10`;
    const feedUrl = `${d.url}/indexer/account/v1/${account}/txs?pagination.limit=10`;
    const feedPage = (await getJson(feedUrl)) as { items: { chain_id: string }[] };
    const times = await timeInTurn({
      feed: async () => void (await getJson(feedUrl)),
      // The feed route on one chain: its own cost beside by_account's on the same chain.
      feedOneChain: async () => void (await getJson(`${feedUrl}&chain_ids=${first}`)),
      single: async () => void (await getJson(byAccount(first))),
      wallet: async () => {
        const pages = await Promise.all(
          specs.map(
            async (s) => ((await getJson(byAccount(s.chainId))) as { txs: { timestamp: string }[] }).txs,
          ),
        );
        pages
          .flat()
          .sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1))
          .slice(0, 10);
      },
    });
    console.log(
      JSON.stringify({
        bench: 'account-feed',
        chains: specs.length,
        head,
        store: pgUrl ? 'postgres' : 'pglite',
        account_active_chains: specs.filter((s) => {
          const { sim } = d.sims.get(s.chainId)!;
          for (let h = 1; h <= head; h++)
            if (sim.truth.block(h).txs.some((t) => t.accounts.includes(account))) return true;
          return false;
        }).length,
        first_page_chains: new Set(feedPage.items.map((i) => i.chain_id)).size,
        account_feed: quantiles(times.feed!),
        account_feed_one_chain: quantiles(times.feedOneChain!),
        single_chain_by_account: quantiles(times.single!),
        wallet_n_requests_merged: quantiles(times.wallet!),
        feed_p99_over_single_p99: Number(
          (quantiles(times.feed!).p99_ms / quantiles(times.single!).p99_ms).toFixed(2),
        ),
        load1: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
      }),
    );
  } finally {
    await d.stop();
    await db?.dispose();
  }
}

void main();
