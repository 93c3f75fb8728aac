import { createHash } from 'node:crypto';
import { accountBytesFromString, toBech32 } from '../../src/shared/address.js';
import type { Db } from '../../src/store/driver/db.js';
import { BLOCK_COLUMNS, blockRowValues } from '../../src/store/writers/tx-rows.js';

/**
 * Test seeder: a small deterministic chain written exactly the way ingest documents its rows
 * (migrations/20261121_0001_core.sql), plus the ground truth the API answers are checked against.
 */
export type SeedVm = 'move' | 'wasm' | 'evm';

export interface SeedBlock {
  height: number;
  hash: string;
  timestampMs: number;
  blockTimeMs: number;
  proposer: string;
  gasUsed: number;
  gasWanted: number;
  txCount: number;
  totalFee: string;
}

export interface SeedTx {
  sequence: number;
  hash: string;
  height: number;
  signer: string;
  /** Distinct bech32 accounts, signer included. */
  accounts: string[];
  msgTypes: string[];
  data: string;
}

export interface SeedChain {
  chainId: string;
  vm: SeedVm;
  blocks: SeedBlock[];
  txs: SeedTx[];
  evmTxs: SeedTx[];
  accounts: string[];
  msgTypes: string[];
  validators: Map<string, string>;
}

export const MSG_TYPES = [
  'cosmos.bank.v1beta1.MsgSend',
  'initia.move.v1.MsgExecute',
  'minievm.evm.v1.MsgCall',
  'cosmos.authz.v1beta1.MsgExec',
];

/** Park-Miller PRNG: deterministic chains for a given seed. */
function prng(seed: number) {
  let state = seed % 2147483647 || 1;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const sha = (text: string) => createHash('sha256').update(text).digest();

export function buildChain(options: {
  vm: SeedVm;
  blocks: number;
  seed?: number;
  chainId?: string;
}): SeedChain {
  const random = prng(options.seed ?? 7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const accounts = Array.from({ length: 12 }, (_, i) =>
    toBech32(sha(`account-${i}`).subarray(0, i === 11 ? 32 : 20), 'init'),
  );
  const valoper = toBech32(sha('validator').subarray(0, 20), 'initvaloper');
  const strangerValoper = toBech32(sha('stranger').subarray(0, 20), 'initvaloper');
  const chain: SeedChain = {
    chainId: options.chainId ?? `${options.vm}-1`,
    vm: options.vm,
    blocks: [],
    txs: [],
    evmTxs: [],
    accounts,
    msgTypes: MSG_TYPES.slice(0, 3), // the 4th type never occurs: filtering by it matches nothing
    validators: new Map([[valoper, `${options.vm}-1-operator`]]),
  };
  const start = Date.UTC(2026, 10, 20, 8, 0, 0);
  for (let height = 1; height <= options.blocks; height++) {
    const timestampMs = start + height * 500 + (height % 7);
    const txCount = height % 5 === 0 ? 0 : Math.floor(random() * 4);
    const fees: bigint[] = [];
    for (let i = 0; i < txCount; i++) {
      const tx = buildTx(chain, height, timestampMs, pick, random);
      fees.push(BigInt(1000 + (tx.sequence % 10)));
    }
    const feeSum = fees.reduce((a, b) => a + b, 0n);
    chain.blocks.push({
      height,
      hash: hex(sha(`block-${height}`)).toUpperCase(),
      timestampMs,
      blockTimeMs: height === 1 ? 0 : 500 + (height % 7) - ((height - 1) % 7),
      proposer: height % 13 === 0 ? strangerValoper : valoper,
      gasUsed: txCount * 100_000,
      gasWanted: txCount * 200_000,
      txCount,
      totalFee: feeSum === 0n ? '[]' : JSON.stringify([{ denom: 'uinit', amount: feeSum.toString() }]),
    });
  }
  return chain;
}

function buildTx(
  chain: SeedChain,
  height: number,
  timestampMs: number,
  pick: <T>(list: readonly T[]) => T,
  random: () => number,
): SeedTx {
  const sequence = chain.txs.length + 1;
  // Account 0 is busy: it signs a third of all txs.
  const signer = random() < 0.34 ? (chain.accounts[0] as string) : pick(chain.accounts);
  const others = [pick(chain.accounts), pick(chain.accounts)].slice(0, Math.floor(random() * 3));
  const accounts = [...new Set([signer, ...others])].sort();
  const msgTypes = [...new Set([pick(chain.msgTypes), ...(random() < 0.2 ? [pick(chain.msgTypes)] : [])])];
  const hash = hex(sha(`tx-${sequence}`)).toUpperCase();
  const time = new Date(timestampMs).toISOString().replace(/\.?0*Z$/, 'Z');
  const data = JSON.stringify({
    txhash: hash,
    height: String(height),
    codespace: '',
    code: 0,
    data: '',
    raw_log: '',
    logs: [],
    info: '',
    gas_wanted: '200000',
    gas_used: '100000',
    tx: {
      body: { memo: 'a<b>&c', messages: msgTypes.map((t) => ({ '@type': `/${t}`, sender: signer })) },
      auth_info: {
        fee: { amount: [{ denom: 'uinit', amount: String(1000 + (sequence % 10)) }], gas_limit: '200000' },
      },
      signatures: [Buffer.from(hash, 'hex').toString('base64')],
    },
    timestamp: time,
    events: [{ type: 'message', attributes: [{ key: 'sender', index: true, value: signer }] }],
  });
  const tx: SeedTx = { sequence, hash, height, signer, accounts, msgTypes, data };
  chain.txs.push(tx);
  if (chain.vm === 'evm') chain.evmTxs.push(buildEvmTx(chain, tx));
  return tx;
}

function buildEvmTx(chain: SeedChain, tx: SeedTx): SeedTx {
  const sequence = chain.evmTxs.length + 1;
  const hash = `0x${hex(sha(`evm-${sequence}`))}`;
  const from = `0x${hex(accountBytesFromString(tx.signer, 'init'))}`;
  const data = JSON.stringify({
    blockHash: `0x${hex(sha(`block-${tx.height}`))}`,
    blockNumber: `0x${tx.height.toString(16)}`,
    contractAddress: null,
    cumulativeGasUsed: '0x5208',
    effectiveGasPrice: '0x0',
    from,
    gasUsed: '0x5208',
    logs: [],
    logsBloom: `0x${'0'.repeat(512)}`,
    status: '0x1',
    to: from,
    transactionHash: hash,
    transactionIndex: '0x0',
    type: '0x2',
  });
  return { ...tx, sequence, hash: hash.slice(2).toUpperCase(), data };
}

/** Writes the chain's rows in batches of multi-row inserts. */
export async function seedDb(db: Db, chain: SeedChain): Promise<void> {
  const accountIds = new Map(chain.accounts.map((a, i) => [a, i + 1]));
  const msgIds = new Map(MSG_TYPES.map((m, i) => [m, i + 1]));
  await insertRows(db, 'chain_meta (chain_id, vm_type)', [[chain.chainId, chain.vm]]);
  await insertRows(
    db,
    'account_dict (id, account)',
    chain.accounts.map((a) => [accountIds.get(a), Buffer.from(accountBytesFromString(a, 'init'))]),
    'OVERRIDING SYSTEM VALUE',
  );
  await insertRows(
    db,
    'msg_type_dict (id, msg_type)',
    [...msgIds].map(([m, id]) => [id, m]),
    'OVERRIDING SYSTEM VALUE',
  );
  await insertRows(db, 'validator (operator_address, moniker)', [...chain.validators]);
  await insertRows(
    db,
    `block (${BLOCK_COLUMNS.join(', ')})`,
    chain.blocks.map((b) =>
      blockRowValues({
        ...b,
        hash: Buffer.from(b.hash, 'hex'),
        timestamp: new Date(b.timestampMs).toISOString(),
        gasUsed: String(b.gasUsed),
        gasWanted: String(b.gasWanted),
      }),
    ),
  );
  for (const [txs, main, edges, counts] of [
    [chain.txs, 'tx', 'tx_accounts', 'tx_account_counts'],
    [chain.evmTxs, 'evm_tx', 'evm_tx_accounts', 'evm_tx_account_counts'],
  ] as const) {
    await insertRows(
      db,
      `${main} (sequence, hash, height, signer_id, data)`,
      txs.map((t) => [t.sequence, Buffer.from(t.hash, 'hex'), t.height, accountIds.get(t.signer), t.data]),
    );
    await insertRows(
      db,
      `${edges} (account_id, sequence, signer)`,
      txs.flatMap((t) => t.accounts.map((a) => [accountIds.get(a), t.sequence, a === t.signer])),
    );
    // Ingest keeps these with the edges (checked against the edges in test/helpers/truth.ts).
    await db.query(
      `INSERT INTO ${counts} SELECT account_id, count(*), count(*) FILTER (WHERE signer) FROM ${edges} GROUP BY account_id`,
    );
  }
  await insertRows(
    db,
    'tx_msg_types (msg_type_id, sequence)',
    chain.txs.flatMap((t) => t.msgTypes.map((m) => [msgIds.get(m), t.sequence])),
  );
  // Ingest keeps the account x message-type edges with the others (checked in test/helpers/truth.ts).
  await db.query(
    `INSERT INTO tx_account_msg_types SELECT a.account_id, m.msg_type_id, a.sequence, a.signer
       FROM tx_accounts a JOIN tx_msg_types m ON m.sequence = a.sequence`,
  );
  await db.query(
    `INSERT INTO tx_msg_type_sets SELECT type_ids, count(*) FROM (${TX_TYPE_SETS}) s GROUP BY type_ids`,
  );
  await seedAccountTypeSets(db);
  const last = chain.blocks.at(-1);
  if (last) {
    await insertRows(db, 'checkpoint (stream, height, block_hash, tx_sequence, evm_sequence)', [
      ['blocks', last.height, Buffer.from(last.hash, 'hex'), chain.txs.length, chain.evmTxs.length],
    ]);
  }
}

async function insertRows(db: Db, target: string, rows: unknown[][], overriding = ''): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    const chunk = rows.slice(start, start + 500);
    const params: unknown[] = [];
    const values = chunk.map(
      (row) => `(${row.map((v) => (params.push(v), `$${params.length}`)).join(', ')})`,
    );
    await db.query(`INSERT INTO ${target} ${overriding} VALUES ${values.join(', ')}`, params);
  }
}

/** Each tx's message-type set, as migration 0014 builds it. */
const TX_TYPE_SETS = `SELECT sequence, array_agg(msg_type_id ORDER BY msg_type_id) AS type_ids
                        FROM tx_msg_types GROUP BY sequence`;

/**
 * The per (account, type set) counts ingest keeps with the edges (checked in test/helpers/truth.ts),
 * for the accounts `where` selects from tx_accounts `a`.
 */
export async function seedAccountTypeSets(db: Db, where = 'true'): Promise<void> {
  await db.query(
    `INSERT INTO tx_account_msg_type_sets
       SELECT a.account_id, s.type_ids, count(*), count(*) FILTER (WHERE a.signer)
         FROM (${TX_TYPE_SETS}) s JOIN tx_accounts a ON a.sequence = s.sequence
        WHERE ${where} GROUP BY a.account_id, s.type_ids`,
  );
}
