/**
 * How many rows a Move token's tx history has, read the old way (txs with NFT events: tx_nfts)
 * and the way docs/api.md §0.10 asks (txs whose accounts include the NFT's object address:
 * tx_accounts), summed over the live tokens and for a few of them (issue 19 item 3 figure).
 * The chain is the one test/api/nft-e2e.test.ts indexes (Move, 16 accounts, 0-3 txs per block).
 *   npx tsx bench/api/nft-history-rows.ts [--head 2000]
 * Indexes into PGlite in memory; prints one JSON object.
 */
import { parseArgs } from 'node:util';
import { accountBytesFromString } from '../../src/shared/address.js';
import { testDbFactories } from '../../test/helpers/db.js';
import { indexSimulator } from '../../test/helpers/ingest.js';

const { values } = parseArgs({ options: { head: { type: 'string', default: '2000' } } });
const head = Number(values.head);

const [pglite] = testDbFactories();
const { db, dispose } = await pglite!.create();
const indexed = await indexSimulator({
  db,
  vm: 'move',
  head,
  txsPerBlock: '0-3',
  sim: { chainId: 'nft-e2e-move-1', accounts: 16 },
});
try {
  const { rows: tokens } = await db.query<{ nft_id: number; c: Uint8Array; t: string; o: Uint8Array }>(
    'SELECT nft_id, collection_addr AS c, token_id AS t, object_addr AS o FROM nft ORDER BY collection_addr, token_id',
  );
  const perToken: Array<{ token: string; txNfts: number; objectAccountTxs: number }> = [];
  for (const token of tokens) {
    const object = accountBytesFromString('0x' + Buffer.from(token.o).toString('hex'), 'init');
    const { rows } = await db.query<{ old: number; new: number }>(
      `SELECT (SELECT count(*) FROM tx_nfts WHERE nft_id = $1)::int AS old,
              (SELECT count(*) FROM tx_accounts a JOIN account_dict d ON d.id = a.account_id
                WHERE d.account = $2)::int AS new`,
      [token.nft_id, Buffer.from(object)],
    );
    perToken.push({
      token: `0x${Buffer.from(token.c).toString('hex')}/${token.t}`,
      txNfts: rows[0]!.old,
      objectAccountTxs: rows[0]!.new,
    });
  }
  const sum = (k: 'txNfts' | 'objectAccountTxs') => perToken.reduce((n, t) => n + t[k], 0);
  const widened = perToken.filter((t) => t.objectAccountTxs > t.txNfts);
  console.log(
    JSON.stringify(
      {
        bench: 'nft-history-rows',
        vm: 'move',
        head,
        txs: (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tx')).rows[0]!.n,
        liveTokens: perToken.length,
        historyRows: { txNfts: sum('txNfts'), objectAccountTxs: sum('objectAccountTxs') },
        tokensWithMoreRows: widened.length,
        examples: [
          ...widened.slice(0, 3),
          ...perToken.filter((t) => t.objectAccountTxs === t.txNfts).slice(0, 2),
        ],
      },
      null,
      2,
    ),
  );
} finally {
  await indexed.close();
  await dispose();
}
