import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bech32 } from 'bech32';
import { testDbFactories, createPostgresTestDb } from '../helpers/db.js';
import { startTestDeployment, type DeploymentChainSpec, type TestDeployment } from '../helpers/deployment.js';
import {
  accountsOnSeveralChains,
  chainTruth,
  compareTruth,
  expectedWalk,
  walkAccount,
  walkKey,
  type TruthTx,
  type WalkItem,
} from './account-truth.js';

/**
 * The account routes across rollups (docs/chains.md §4) against the simulators' own truth: three
 * rollups (Move, Wasm, EVM; own seeds, one keyring so their users are the same accounts), the EVM
 * one far behind and catching up, and a fourth chain whose node never answers (never serving).
 * Signatures are not checked by the indexer, so the simulators skip real signing.
 */
const KEYRING = { keyringSeed: 7, accounts: 6, nftShare: 0.5, fastSignatures: true };
/** Most blocks a commit holds: the EVM chain's catch-up is several commits, each one page of the walk. */
const COMMIT_BLOCKS = 8;
const DEAD = 'acct-dead-1';
const SPECS: DeploymentChainSpec[] = [
  { vm: 'move', chainId: 'acct-move-1', head: 24, txsPerBlock: '1-4', sim: { seed: 21, ...KEYRING } },
  { vm: 'wasm', chainId: 'acct-wasm-1', head: 20, txsPerBlock: '1-4', sim: { seed: 22, ...KEYRING } },
  // Halted at its first block, so it is far behind until the first walk releases it.
  // Slow answers, few requests at a time and small commits make its catch-up span the walk; its
  // block times interleave with the other chains' (one genesis), so what it commits meanwhile falls
  // inside the walk's range, where the snapshot must leave it out.
  {
    vm: 'evm',
    chainId: 'acct-evm-1',
    head: 40,
    txsPerBlock: '1-4',
    sim: { seed: 23, ...KEYRING, faults: 'latency=30' },
    haltAt: 1,
  },
  {
    vm: 'move',
    chainId: DEAD,
    head: 2,
    sim: { seed: 24 },
    entry: { rpc: 'http://127.0.0.1:9', rest: 'http://127.0.0.1:9' },
  },
];
const LIVE = SPECS.filter((s) => s.chainId !== DEAD);
const headOf = (id: string) => (id === DEAD ? 0 : SPECS.find((s) => s.chainId === id)!.head);

async function heights(d: TestDeployment): Promise<Map<string, number>> {
  return new Map((await d.chains()).map((c) => [c.chainId, c.height]));
}

function expectStrictOrder(items: readonly WalkItem[], truth: ReadonlyMap<string, TruthTx>, desc: boolean) {
  for (let i = 1; i < items.length; i++) {
    const order = compareTruth(truth.get(walkKey(items[i - 1]!))!, truth.get(walkKey(items[i]!))!);
    expect(desc ? order : -order).toBeGreaterThan(0);
  }
}

describe.each(testDbFactories())('account routes across three rollups ($name)', (store) => {
  let d: TestDeployment;
  let shardName: string | undefined;
  const truth = new Map<string, TruthTx>();
  const all: TruthTx[] = [];
  const disposers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    const pg = store.name === 'postgres';
    const base = pg
      ? await createPostgresTestDb(process.env.TEST_DATABASE_URL!, { migrate: false })
      : undefined;
    const shard = pg
      ? await createPostgresTestDb(process.env.TEST_DATABASE_URL!, { migrate: false })
      : undefined;
    for (const db of [base, shard]) if (db) disposers.push(() => db.dispose());
    shardName = shard && new URL(shard.url).pathname.slice(1);
    const specs = SPECS.map((s) => (s.vm === 'evm' && shard ? { ...s, databaseUrl: shard.url } : s));
    d = await startTestDeployment({
      chains: specs,
      ...(base ? { databaseUrl: base.url } : {}),
      env: { MAX_CONCURRENT_REQUESTS: '2', MAX_BLOCKS_PER_COMMIT: String(COMMIT_BLOCKS) },
    });
    for (const s of LIVE) all.push(...chainTruth(s.chainId, d.sims.get(s.chainId)!.sim, s.head));
    for (const t of all) truth.set(walkKey(t), t);
    // The Move and Wasm chains complete, the EVM one serves its first block: it catches up during the first test.
    await d.untilIndexed((id) => (id === 'acct-evm-1' ? 1 : headOf(id)));
  }, 300_000);
  afterAll(async () => {
    await d?.stop();
    for (const dispose of disposers) await dispose();
  });

  it('walks one snapshot while the EVM chain catches up from far behind: nothing skipped or repeated', async () => {
    const evmAccounts = new Set(all.filter((t) => t.chainId === 'acct-evm-1').flatMap((t) => t.accounts));
    const account = accountsOnSeveralChains(all).find((a) => evmAccounts.has(a))!;
    const before = await heights(d);
    let after = before;
    const evmAtStart = before.get('acct-evm-1')!;
    expect(evmAtStart).toBeLessThan(headOf('acct-evm-1'));
    // Oldest first: what the EVM chain commits during the walk lands past the end the snapshot fixed.
    const params = { 'pagination.limit': '2', 'pagination.reverse': 'false' };
    let evmCommits = 0;
    const off = d.onCommit((id) => (evmCommits += id === 'acct-evm-1' ? 1 : 0));
    const walked = await walkAccount(d.url, account, params, async (_page, n) => {
      if (n === 1) {
        after = await heights(d);
        evmCommits = 0;
        d.sims.get('acct-evm-1')!.sim.halt(undefined);
      }
      // Each next page only after the EVM chain committed more (an event, not a delay).
      const now = (await heights(d)).get('acct-evm-1')!;
      if (now < headOf('acct-evm-1')) await d.untilIndexed((id) => (id === 'acct-evm-1' ? now + 1 : 0));
    });
    off();
    const evmAtEnd = (await heights(d)).get('acct-evm-1')!;
    expect(walked.pages.length).toBeGreaterThan(2);
    expect(evmAtEnd).toBeGreaterThan(after.get('acct-evm-1')!);
    // The catch-up spanned the walk: commits between pages, not one burst after the first page.
    expect(evmCommits).toBeGreaterThanOrEqual(3);
    const keys = walked.items.map(walkKey);
    expect(new Set(keys).size).toBe(keys.length);
    expectStrictOrder(walked.items, truth, false);
    for (const page of walked.pages) expect(page.unavailable).toEqual([DEAD]);
    // Each chain's items are exactly its truth up to one height the first page could have fixed.
    for (const s of LIVE) {
      const served = walked.items.filter((i) => i.chain_id === s.chainId).map(walkKey);
      const fits = [];
      for (let h = before.get(s.chainId)!; h <= after.get(s.chainId)!; h++) {
        const want = expectedWalk(all, { account, heights: new Map([[s.chainId, h]]) }, false).map(walkKey);
        if (JSON.stringify(want) === JSON.stringify(served)) fits.push(h);
      }
      expect(fits.length, `${s.chainId}: ${served.length} items fit no snapshot height`).toBeGreaterThan(0);
    }
  }, 300_000);

  it('equals the merge of the simulators’ truth for every account on two or more chains, both directions', async () => {
    await d.untilIndexed(headOf);
    const accounts = accountsOnSeveralChains(all);
    expect(accounts.length).toBeGreaterThan(1);
    for (const account of accounts) {
      for (const [desc, limit] of [
        [true, 4],
        [false, 5],
      ] as const) {
        const params = { 'pagination.limit': String(limit), 'pagination.reverse': String(desc) };
        const walked = await walkAccount(d.url, account, params);
        const want = expectedWalk(all, { account }, desc);
        expect(walked.items.map(walkKey), `${account} desc=${desc}`).toEqual(want.map(walkKey));
        expect(walked.pages[0]!.pagination.total).toBe(String(want.length));
        expect(walked.pages[0]!.unavailable).toEqual([DEAD]);
      }
    }
  }, 300_000);

  it("serves each tx as the chain's own /txs/{hash} tx object, byte for byte", async () => {
    const account = accountsOnSeveralChains(all)[0]!;
    const res = await fetch(`${d.url}/indexer/account/v1/${account}/txs?pagination.limit=6`);
    const text = await res.text();
    const items = (JSON.parse(text) as { items: WalkItem[] }).items;
    expect(new Set(items.map((i) => i.chain_id)).size).toBeGreaterThan(0);
    for (const item of items) {
      const own = await (
        await fetch(`${d.url}/chains/${item.chain_id}/indexer/tx/v1/txs/${item.tx.txhash}`)
      ).text();
      expect(text).toContain(`{"chain_id":"${item.chain_id}","tx":${own.slice('{"tx":'.length, -1)}}`);
    }
  });

  it('filters by is_signer, msgs and chain_ids as the list routes do', async () => {
    const account = accountsOnSeveralChains(all)[0]!;
    const signed = await walkAccount(d.url, account, { is_signer: 'true', 'pagination.limit': '3' });
    expect(signed.items.map(walkKey)).toEqual(
      expectedWalk(all, { account, signerOnly: true }, true).map(walkKey),
    );
    const mine = all.filter((t) => t.accounts.includes(account));
    const msg = mine[0]!.msgTypes[0]!;
    const byMsg = await walkAccount(d.url, account, { msgs: msg, 'pagination.limit': '3' });
    expect(byMsg.items.map(walkKey)).toEqual(expectedWalk(all, { account, msgs: [msg] }, true).map(walkKey));
    expect(byMsg.pages[0]!.pagination.total).toBe(
      String(expectedWalk(all, { account, msgs: [msg] }, true).length),
    );
    const two = await walkAccount(d.url, account, {
      chain_ids: 'acct-wasm-1,acct-move-1',
      'pagination.limit': '4',
    });
    const want = expectedWalk(all, { account }, true).filter((t) => t.chainId !== 'acct-evm-1');
    expect(two.items.map(walkKey)).toEqual(want.map(walkKey));
    expect(two.pages[0]!.unavailable).toEqual([]);
  });

  it('takes init1…, 0x+40 and zero-padded 0x+64 for the same account; 400 naming the parameter otherwise', async () => {
    const account = accountsOnSeveralChains(all)[0]!;
    const hex = bech32Hex(account);
    const answers = await Promise.all(
      [account, `0x${hex}`, `0x${'0'.repeat(24)}${hex}`].map(async (a) =>
        (await fetch(`${d.url}/indexer/account/v1/${a}/txs?pagination.limit=5`)).text(),
      ),
    );
    expect(new Set(answers).size).toBe(1);
    for (const [path, parameter] of [
      ['/indexer/account/v1/0x1234/txs', 'address'],
      [`/indexer/account/v1/0x${'1'.repeat(64)}/nfts`, 'address'],
      ['/indexer/account/v1/cosmos1xyz/summary', 'address'],
      [`/indexer/account/v1/${account}/txs?chain_ids=nope-1`, 'chain_ids'],
      [`/indexer/account/v1/${account}/txs?pagination.key=bm90LWEta2V5`, 'pagination.key'],
      [`/indexer/account/v1/${account}/txs?pagination.limit=0`, 'pagination.limit'],
      [`/indexer/account/v1/${account}/txs?pagination.offset=2`, 'pagination.offset'],
      [`/indexer/account/v1/${account}/nfts?pagination.offset=2`, 'pagination.offset'],
    ] as const) {
      const res = await fetch(`${d.url}${path}`);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { message: string }).message, path).toContain(parameter);
    }
  });

  it('lists the NFTs each chain’s truth gives the account, chain by chain, in small pages', async () => {
    for (const account of accountsOnSeveralChains(all)) {
      const want = LIVE.flatMap((s) =>
        d.sims
          .get(s.chainId)!
          .sim.truth.nftTokens(s.head)
          .filter((t) => t.owner === account)
          .map((t) => `${s.chainId}/${t.collectionAddr}/${t.tokenId}`),
      ).sort();
      const got: string[] = [];
      let key: string | null = null;
      do {
        const q: string = key ? `&pagination.key=${encodeURIComponent(key)}` : '';
        const page = (await (
          await fetch(`${d.url}/indexer/account/v1/${account}/nfts?pagination.limit=2${q}`)
        ).json()) as {
          items: { chain_id: string; token: { collection_addr: string; nft: { token_id: string } } }[];
          pagination: { next_key: string | null; total: string };
        };
        if (!key) expect(page.pagination.total).toBe(String(want.length));
        got.push(
          ...page.items.map((i) => `${i.chain_id}/${i.token.collection_addr}/${i.token.nft.token_id}`),
        );
        key = page.pagination.next_key;
      } while (key);
      expect(got.length).toBe(new Set(got).size);
      expect([...got].sort()).toEqual(want);
    }
  });

  it('summarises each chain: tx counts, first and last activity, NFTs held, balances', async () => {
    const account = accountsOnSeveralChains(all)[0]!;
    const body = (await (await fetch(`${d.url}/indexer/account/v1/${account}/summary`)).json()) as {
      chains: {
        chain_id: string;
        txs: { all: string; signed: string };
        first_activity: string | null;
        last_activity: string | null;
        nfts_held: string;
      }[];
      unavailable: string[];
    };
    expect(body.unavailable).toEqual([DEAD]);
    for (const s of LIVE) {
      const c = body.chains.find((x) => x.chain_id === s.chainId)!;
      const mine = all.filter((t) => t.chainId === s.chainId && t.accounts.includes(account));
      expect(c.txs).toEqual({
        all: String(mine.length),
        signed: String(mine.filter((t) => t.signer === account).length),
      });
      const sim = d.sims.get(s.chainId)!.sim;
      expect(c.first_activity).toBe(mine.length ? sim.truth.block(mine[0]!.height).time : null);
      expect(c.last_activity).toBe(mine.length ? sim.truth.block(mine.at(-1)!.height).time : null);
      const held = sim.truth.nftTokens(s.head).filter((t) => t.owner === account).length;
      expect(c.nfts_held).toBe(String(held));
    }
  });

  it('documents the account routes in the deployment’s OpenAPI', async () => {
    const doc = (await (await fetch(`${d.url}/swagger/doc.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    for (const p of ['txs', 'nfts', 'summary'])
      expect(doc.paths).toHaveProperty([`/indexer/account/v1/{address}/${p}`]);
  });

  it.runIf(store.name === 'postgres')(
    'names a chain whose database went down and walks on without it',
    async () => {
      const account = accountsOnSeveralChains(all)[0]!;
      const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      try {
        const walked = await walkAccount(d.url, account, { 'pagination.limit': '2' }, async (_page, n) => {
          if (n !== 1) return;
          await admin.query(`ALTER DATABASE "${shardName}" ALLOW_CONNECTIONS false`);
          await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
            shardName,
          ]);
        });
        expect(walked.pages.at(-1)!.unavailable.sort()).toEqual([DEAD, 'acct-evm-1'].sort());
        const keys = walked.items.map(walkKey);
        expect(new Set(keys).size).toBe(keys.length);
        expectStrictOrder(walked.items, truth, true);
        const want = expectedWalk(all, { account }, true);
        // Everything of the chains still up, and of the EVM chain only what the first page served.
        const evmServed = new Set(walked.pages[0]!.items.map(walkKey));
        expect(keys).toEqual(
          want.filter((t) => t.chainId !== 'acct-evm-1' || evmServed.has(walkKey(t))).map(walkKey),
        );
        const summary = await fetch(`${d.url}/indexer/account/v1/${account}/summary`);
        expect(summary.status).toBe(200);
        expect(((await summary.json()) as { unavailable: string[] }).unavailable).toContain('acct-evm-1');
      } finally {
        await admin.query(`ALTER DATABASE "${shardName}" ALLOW_CONNECTIONS true`);
        await admin.end();
      }
    },
    120_000,
  );
});

/** The account's 20 bytes in hex. */
function bech32Hex(account: string): string {
  return Buffer.from(bech32.fromWords(bech32.decode(account).words)).toString('hex');
}
