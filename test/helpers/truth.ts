import { expect } from 'vitest';
import { accountBytesFromString, toBech32 } from '../../src/shared/address.js';
import type { Db } from '../../src/store/driver/db.js';
import type { Simulator } from '../../src/sim/types.js';
import { expectEvmTxsMatchNode } from './truth-evm.js';
import { expectInternalTxsMatchTruth } from './truth-internal-txs.js';
import { storedTxTexts } from './stored-tx.js';
import { storedTxString } from '../../src/wire/tx-packing.js';

/** Everything ingest stored, per tx, in the truth's shape. */
async function storedTxs(db: Db) {
  const { rows } = await db.query<{
    sequence: number;
    hash: Uint8Array;
    height: number;
    signer: Uint8Array;
    data: string | null;
    data_packed: Uint8Array | null;
    accounts: Uint8Array[];
    signer_flags: boolean[];
    msg_types: string[];
  }>(`
    SELECT t.sequence, t.hash, t.height, s.account AS signer, t.data, t.data_packed,
           array(SELECT d.account FROM tx_accounts a JOIN account_dict d ON d.id = a.account_id
                  WHERE a.sequence = t.sequence ORDER BY d.account) AS accounts,
           array(SELECT a.signer FROM tx_accounts a JOIN account_dict d ON d.id = a.account_id
                  WHERE a.sequence = t.sequence ORDER BY d.account) AS signer_flags,
           array(SELECT m.msg_type FROM tx_msg_types x JOIN msg_type_dict m ON m.id = x.msg_type_id
                  WHERE x.sequence = t.sequence ORDER BY m.msg_type) AS msg_types
      FROM tx t JOIN account_dict s ON s.id = t.signer_id ORDER BY t.sequence`);
  return rows;
}

/**
 * The database holds exactly heights 1..head of the simulator's chain: every block once, every
 * tx once with a gapless sequence, its accounts, signer flag and message types as the truth says;
 * on EVM also every receipt once (evm_tx, its JSON and account edges, against the simulator's
 * JSON-RPC, which must still be listening) and the internal txs up to that stage's checkpoint.
 */
export async function expectIngestMatchesTruth(db: Db, sim: Simulator, head: number): Promise<void> {
  const txs = await storedTxs(db);
  const truthTxs = Array.from({ length: head }, (_, i) => sim.truth.block(i + 1).txs).flat();
  expect(txs.length).toBe(truthTxs.length);
  txs.forEach((row, i) => {
    const truth = truthTxs[i]!;
    const where = `tx ${i + 1} (height ${truth.height})`;
    expect(row.sequence, where).toBe(i + 1);
    expect(Buffer.from(row.hash).toString('hex').toUpperCase(), where).toBe(truth.hash);
    expect(row.height, where).toBe(truth.height);
    expect(toBech32(row.signer, 'init'), where).toBe(truth.signer);
    const accounts = row.accounts.map((a) => toBech32(a, 'init'));
    expect([...accounts].sort(), where).toEqual([...truth.accounts].sort());
    expect(row.signer_flags, where).toEqual(accounts.map((a) => a === truth.signer));
    expect([...row.msg_types].sort(), where).toEqual([...truth.msgTypes].sort());
    const data = JSON.parse(storedTxString(row)) as {
      txhash: string;
      code: number;
      height: string;
      gas_used: string;
    };
    expect(data, where).toMatchObject({
      txhash: truth.hash,
      code: truth.code,
      height: String(truth.height),
      gas_used: truth.gasUsed,
    });
  });

  const blocks = await db.query<{ height: number; hash: Uint8Array; gas_used: number; tx_count: number }>(
    'SELECT height, hash, gas_used, tx_count FROM block ORDER BY height',
  );
  expect(blocks.rows.map((b) => b.height)).toEqual(Array.from({ length: head }, (_, i) => i + 1));
  for (const b of blocks.rows) {
    const truth = sim.truth.block(b.height);
    expect(Buffer.from(b.hash).toString('hex').toUpperCase(), `block ${b.height}`).toBe(truth.hash);
    expect(String(b.gas_used), `block ${b.height}`).toBe(truth.gasUsed);
    expect(b.tx_count, `block ${b.height}`).toBe(truth.txs.length);
  }
  await expectEvmRowsMatchTruth(db, sim, head);
  const checkpoint = await db.query<{ height: number; tx_sequence: number }>(
    "SELECT height, tx_sequence FROM checkpoint WHERE stream = 'blocks'",
  );
  expect(checkpoint.rows[0]).toEqual({ height: head, tx_sequence: truthTxs.length });
  await expectAccountCountsMatchEdges(db);
}

/**
 * EVM rows exactly as the node serves them; on Move and Wasm none at all. Internal txs are checked
 * where the stage is on (it has a checkpoint), up to that checkpoint: the stage may lag the head.
 */
async function expectEvmRowsMatchTruth(db: Db, sim: Simulator, head: number): Promise<void> {
  if (sim.options.vm !== 'evm') {
    const { rows } = await db.query<{ n: number }>(
      'SELECT (SELECT count(*) FROM evm_tx)::int + (SELECT count(*) FROM evm_tx_accounts)::int AS n',
    );
    expect(rows[0]!.n, `EVM rows on ${sim.options.vm}`).toBe(0);
    return;
  }
  await expectEvmTxsMatchNode(db, sim, head);
  const stage = await db.query<{ height: number }>(
    "SELECT height FROM checkpoint WHERE stream = 'internal_tx'",
  );
  if (stage.rows[0] !== undefined) await expectInternalTxsMatchTruth(db, sim, Number(stage.rows[0].height));
}

/** The per-account counters ingest keeps (count_total's source) equal a fresh count of the edges. */
async function expectAccountCountsMatchEdges(db: Db): Promise<void> {
  for (const [edges, counts] of [
    ['tx_accounts', 'tx_account_counts'],
    ['evm_tx_accounts', 'evm_tx_account_counts'],
  ]) {
    const { rows } = await db.query<{ account_id: number; txs: number; signed: number }>(
      `SELECT account_id, count(*)::int8 AS txs, (count(*) FILTER (WHERE signer))::int8 AS signed
         FROM ${edges} GROUP BY account_id ORDER BY account_id`,
    );
    const kept = await db.query<{ account_id: number; txs: number; signed: number }>(
      `SELECT account_id, txs, signed FROM ${counts} ORDER BY account_id`,
    );
    expect(kept.rows, counts).toEqual(rows);
  }
  // The account x message-type edges are exactly the product of a tx's account and type edges.
  const cross = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       (SELECT account_id, msg_type_id, sequence, signer FROM tx_account_msg_types
        EXCEPT ALL SELECT a.account_id, m.msg_type_id, a.sequence, a.signer
          FROM tx_accounts a JOIN tx_msg_types m ON m.sequence = a.sequence)
       UNION ALL
       (SELECT a.account_id, m.msg_type_id, a.sequence, a.signer
          FROM tx_accounts a JOIN tx_msg_types m ON m.sequence = a.sequence
        EXCEPT ALL SELECT account_id, msg_type_id, sequence, signer FROM tx_account_msg_types)) d`,
  );
  expect(cross.rows[0]?.n, 'tx_account_msg_types differs from tx_accounts x tx_msg_types').toBe(0);
  await expectTypeSetCountsMatchEdges(db);
}

/**
 * The per message-type-set counts (`msgs` totals, migration 0014) equal a fresh count over the edges:
 * whole chain, and per account with the signed share. Sets are compared as text ('{1,4}').
 */
export async function expectTypeSetCountsMatchEdges(db: Db): Promise<void> {
  const sets = `SELECT sequence, array_agg(msg_type_id ORDER BY msg_type_id)::text AS type_ids
                  FROM tx_msg_types GROUP BY sequence`;
  const chain = await db.query(
    `SELECT type_ids, count(*)::int8 AS txs FROM (${sets}) s GROUP BY type_ids ORDER BY type_ids`,
  );
  const keptChain = await db.query(
    'SELECT type_ids::text AS type_ids, txs FROM tx_msg_type_sets ORDER BY type_ids::text',
  );
  expect(keptChain.rows, 'tx_msg_type_sets').toEqual(chain.rows);
  const accounts = await db.query(
    `SELECT a.account_id, s.type_ids, count(*)::int8 AS txs, (count(*) FILTER (WHERE a.signer))::int8 AS signed
       FROM (${sets}) s JOIN tx_accounts a ON a.sequence = s.sequence
      GROUP BY a.account_id, s.type_ids ORDER BY a.account_id, s.type_ids`,
  );
  const keptAccounts = await db.query(
    `SELECT account_id, type_ids::text AS type_ids, txs, signed FROM tx_account_msg_type_sets
      ORDER BY account_id, type_ids::text`,
  );
  expect(keptAccounts.rows, 'tx_account_msg_type_sets').toEqual(accounts.rows);
}

/**
 * The NFT tables equal the simulator's NFT truth at `head`: collections (address, name, creator,
 * origin name, exact nft_count), live tokens (owner, uri), per-owner holdings derived from them,
 * and every token's tx edges point at txs whose events name that token.
 */
export async function expectNftMatchesTruth(db: Db, sim: Simulator, head: number): Promise<void> {
  const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
  const collections = await db.query<{
    addr: Uint8Array;
    name: string;
    creator: Uint8Array | null;
    origin_name: string;
    nft_count: number;
  }>(
    `SELECT c.addr, c.name, d.account AS creator, c.origin_name, c.nft_count
       FROM nft_collection c LEFT JOIN account_dict d ON d.id = c.creator_id ORDER BY c.addr`,
  );
  expect(
    collections.rows.map((c) => ({
      addr: hex(c.addr),
      name: c.name,
      creator: c.creator ? toBech32(c.creator, 'init') : '',
      originName: c.origin_name,
      nftCount: Number(c.nft_count),
    })),
  ).toEqual(sim.truth.nftCollections(head));

  const tokens = await db.query<{
    collection_addr: Uint8Array;
    token_id: string;
    owner: Uint8Array;
    uri: string;
  }>(
    `SELECT n.collection_addr, n.token_id, d.account AS owner, n.uri
       FROM nft n JOIN account_dict d ON d.id = n.owner_id ORDER BY n.collection_addr, length(n.token_id), n.token_id`,
  );
  expect(
    tokens.rows.map((t) => ({
      collectionAddr: hex(t.collection_addr),
      tokenId: t.token_id,
      owner: toBech32(t.owner, 'init'),
      uri: t.uri,
    })),
  ).toEqual(sim.truth.nftTokens(head));

  const holdings = await db.query<{
    owner_id: number;
    collection_addr: Uint8Array;
    nft_count: number;
    live: number;
  }>(
    `SELECT h.owner_id, h.collection_addr, h.nft_count,
            (SELECT count(*) FROM nft n WHERE n.owner_id = h.owner_id AND n.collection_addr = h.collection_addr) AS live
       FROM nft_holding h`,
  );
  for (const h of holdings.rows) expect(Number(h.nft_count), `holding ${h.owner_id}`).toBe(Number(h.live));
  const distinctPairs = await db.query<{ n: number }>(
    `SELECT count(*) AS n FROM (SELECT DISTINCT owner_id, collection_addr FROM nft) p`,
  );
  expect(holdings.rows.length).toBe(Number(distinctPairs.rows[0]!.n));
}

type StoredEvent = { type: string; attributes?: Array<{ key: string; value?: string }> };

/**
 * Every token's tx history is exactly the txs whose events touch it, read back from the stored tx
 * JSON (an independent reading of the events, not the collector): ERC721 Transfer logs, cw721
 * mint / transfer_nft / send_nft / burn, Move Mint / Transfer (of a minted object) / uri Mutation /
 * Burn. Returns the number of edges compared.
 */
export async function expectNftTxEdgesMatchEvents(db: Db, vm: 'move' | 'wasm' | 'evm'): Promise<number> {
  const expected = new Set<string>();
  const objects = new Map<string, string>();
  const pad = (h: string, n: number) => '0x' + h.replace(/^0x/, '').toLowerCase().padStart(n, '0');
  const rows = await storedTxTexts(db);
  for (const row of rows) {
    const events = (JSON.parse(row.data) as { events?: StoredEvent[] }).events ?? [];
    for (const e of events) {
      const a = new Map((e.attributes ?? []).map((x) => [x.key, x.value ?? '']));
      let key: string | undefined;
      if (vm === 'evm' && e.type === 'evm') {
        for (const x of e.attributes ?? []) {
          if (x.key !== 'log') continue;
          const log = JSON.parse(x.value!) as { address: string; topics: string[]; data: string };
          if (log.topics.length === 4 && log.topics[0]!.startsWith('0xddf252ad') && log.data === '0x')
            expected.add(`${log.address.toLowerCase()}/${BigInt(log.topics[3]!)}@${row.sequence}`);
        }
      } else if (vm === 'wasm' && e.type === 'wasm' && a.has('token_id')) {
        if (['mint', 'transfer_nft', 'send_nft', 'burn'].includes(a.get('action') ?? ''))
          key = `${pad(Buffer.from(accountBytesOf(a.get('_contract_address')!)).toString('hex'), 0)}/${a.get('token_id')}`;
      } else if (vm === 'move' && e.type === 'move') {
        const tag = a.get('type_tag');
        const d = JSON.parse(a.get('data') ?? '{}') as Record<string, string>;
        if (tag === '0x1::collection::MintEvent') {
          key = `${pad(d.collection!, 64)}/${d.token_id}`;
          objects.set(pad(d.nft!, 64), key);
        } else if (tag === '0x1::object::TransferEvent') key = objects.get(pad(d.object!, 64));
        else if (tag === '0x1::nft::MutationEvent' && d.mutated_field_name === 'uri')
          key = objects.get(pad(d.nft!, 64));
        else if (tag === '0x1::collection::BurnEvent') key = objects.get(pad(d.nft!, 64));
      }
      if (key) expected.add(`${key}@${row.sequence}`);
    }
  }
  const stored = await db.query<{ c: Uint8Array; t: string; sequence: number }>(
    `SELECT d.collection_addr AS c, d.token_id AS t, e.sequence FROM tx_nfts e JOIN nft_dict d ON d.id = e.nft_id`,
  );
  const actual = new Set(
    stored.rows.map((r) => `0x${Buffer.from(r.c).toString('hex')}/${r.t}@${r.sequence}`),
  );
  expect([...actual].sort()).toEqual([...expected].sort());
  return actual.size;
}

function accountBytesOf(bech32Text: string): Uint8Array {
  return accountBytesFromString(bech32Text, 'init');
}
