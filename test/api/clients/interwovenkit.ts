import { expect, it } from 'vitest';
import type { NftTokenTruth } from '../../../src/sim/types.js';
import type { ClientChain } from './chain.js';
import { accountOfPubkey, bech32Of, fetchParsed, followPages, sameAccount } from './client.js';
import { iwkCollectionByAddr, iwkCollections, iwkTokens, iwkTxs } from './schemas.js';

/**
 * InterwovenKit's calls (packages/interwovenkit-react/src/pages/wallet/tabs/activity/queries.ts,
 * tabs/nft/queries.ts, src/data/tx.ts, src/data/pagination.ts, the IBC NFT transfer helpers):
 * always the bech32 account, ky query strings (an empty `pagination.key=` on first pages), and
 * fetchAllPages / getNextPageParam following next_key.
 */
const TXS = '/indexer/tx/v1/txs/by_account';
const NFT = '/indexer/nft/v1';
const keyOf = (addr: string, tokenId: string) => `${addr.toLowerCase()}/${tokenId}`;
const truthKeys = (tokens: NftTokenTruth[]) => tokens.map((t) => keyOf(t.collectionAddr, t.tokenId)).sort();
const pageKeys = (pages: { tokens: { collection_addr: string; nft: { token_id: string } }[] }[]) =>
  pages.flatMap((p) => p.tokens.map((t) => keyOf(t.collection_addr, t.nft.token_id))).sort();

export function interwovenkitTests(chain: () => ClientChain): void {
  it('activity: the newest 10 txs of an account, then every page from an empty key (useTxs)', async () => {
    const { h, txs, accounts } = chain();
    for (const account of accounts) {
      const want = txs
        .filter((t) => t.accounts.includes(account))
        .map((t) => t.hash)
        .reverse();
      const path = `${TXS}/${bech32Of(account)}`;
      const latest = await fetchParsed(
        h,
        path,
        { 'pagination.reverse': true, 'pagination.limit': 10 },
        iwkTxs,
      );
      expect(
        latest.txs.map((t) => t.txhash),
        path,
      ).toEqual(want.slice(0, 10));
      const pages = await followPages(h, path, { 'pagination.key': '', 'pagination.reverse': true }, iwkTxs);
      expect(
        pages.flatMap((p) => p.txs.map((t) => t.txhash)),
        path,
      ).toEqual(want);
    }
  });

  it('last fee denom: the newest tx the account signed is found by its signer key (useLastFeeDenom)', async () => {
    const { h, txs, accounts } = chain();
    for (const account of accounts) {
      const signed = txs.filter((t) => t.signer === account).reverse();
      const page = await fetchParsed(
        h,
        `${TXS}/${bech32Of(account)}`,
        { 'pagination.key': '', 'pagination.reverse': true },
        iwkTxs,
      );
      const found = page.txs.find(({ tx }) =>
        tx.auth_info.signer_infos.some((info) => accountOfPubkey(info.public_key) === account),
      );
      // Only the first page (100 txs) is searched; the newest signed tx is on it when it exists.
      const newest = signed.find((t) => page.txs.some((x) => x.txhash === t.hash));
      expect(found?.txhash, account).toBe(newest?.hash);
      expect(found?.tx.auth_info.fee.amount[0]?.denom, account).toBe(newest?.fee[0]?.denom);
    }
  });

  it("activity changes: each tx's events are the node's, msg_index attributes included (getCoinChanges)", async () => {
    const { h, sampleTxs, indexed } = chain();
    for (const truth of sampleTxs) {
      const node = (await (
        await fetch(`${indexed.urls.rest}/cosmos/tx/v1beta1/txs/${truth.hash}`)
      ).json()) as {
        tx_response: { events: unknown[] };
      };
      const res = await h.get(`/indexer/tx/v1/txs/${truth.hash}`);
      const served = (res.json as { tx: { events: unknown[] } }).tx.events;
      expect(served, truth.hash).toEqual(node.tx_response.events);
    }
  });

  it('NFTs: every page of the tokens an account owns (useAllNfts, fetchAllPages)', async () => {
    const { h, tokens } = chain();
    for (const owner of [...new Set(tokens.map((t) => t.owner))]) {
      const pages = await followPages(h, `${NFT}/tokens/by_account/${bech32Of(owner)}`, {}, iwkTokens);
      expect(pageKeys(pages), owner).toEqual(truthKeys(tokens.filter((t) => t.owner === owner)));
    }
  });

  it("collections of an account, then each collection's tokens 9 at a time from an empty key (useCollections, useNfts)", async () => {
    const { h, tokens } = chain();
    for (const owner of [...new Set(tokens.map((t) => t.owner))]) {
      const account = bech32Of(owner);
      const own = tokens.filter((t) => t.owner === owner);
      const pages = await followPages(h, `${NFT}/collections/by_account/${account}`, {}, iwkCollections);
      const collections = pages.flatMap((p) => p.collections);
      expect(collections.map((c) => c.object_addr).sort(), account).toEqual(
        [...new Set(own.map((t) => t.collectionAddr))].sort(),
      );
      for (const { object_addr: addr } of collections) {
        const tokenPages = await followPages(
          h,
          `${NFT}/tokens/by_account/${account}`,
          { collection_addr: addr, 'pagination.key': '', 'pagination.limit': 9 },
          iwkTokens,
        );
        expect(pageKeys(tokenPages), `${account} ${addr}`).toEqual(
          truthKeys(own.filter((t) => t.collectionAddr === addr)),
        );
      }
    }
  });

  it('IBC NFT transfer: a collection looked up by its bech32 address names its creator (fetchCollectionCreatorAddress)', async () => {
    const { h, collections, vm } = chain();
    // InterwovenKit sends the bech32 form on MiniWasm (the cw721 contract); the object address elsewhere.
    for (const truth of collections) {
      const addr = vm === 'wasm' ? bech32Of(truth.addr) : truth.addr;
      const { collection } = await fetchParsed(h, `${NFT}/collections/${addr}`, {}, iwkCollectionByAddr);
      expect(sameAccount(collection.collection.creator, truth.creator), addr).toBe(true);
    }
  });
}

/**
 * Both clients run in the browser and call the indexer from another origin (docs/api.md §0.9):
 * a GET carries Access-Control-Allow-Origin, and a preflight is answered.
 */
export function browserTests(chain: () => ClientChain): void {
  it('CORS: cross-origin GET and preflight are allowed by default', async () => {
    const { h, accounts } = chain();
    const origin = 'https://scan.example.org';
    const url = `${TXS}/${bech32Of(accounts[0]!)}?pagination.limit=1`;
    const get = await h.request('GET', url, { origin });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBe('*');
    const preflight = await h.request('OPTIONS', url, { origin, 'access-control-request-method': 'GET' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-methods'])).toMatch(/GET/);
  });
}
