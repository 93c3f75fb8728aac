import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, type Harness } from './harness.js';
import { seedNfts, type NftSeed } from './nft-seed.js';

const NFT = '/indexer/nft/v1';
const LIMIT = 'pagination.limit must be between 1 and 1000';
const badAccount = (raw: string) =>
  `[INVALID_VALUE] invalid value for account: ${raw} (invalid address format)`;
const badAddr = (raw: string, reason: string) =>
  `[INVALID_VALUE] invalid value for collection_addr: ${raw} (${reason})`;
const ORDER = "invalid order_by value 'name', must be one of: token_id, height";

/** docs/api.md §4.10: which 400 wins on each NFT route, 404s, and no 500 for any input. */
describe.each(testDbFactories())('NFT routes reject bad input on $name', (factory) => {
  let h: Harness;
  let seed: NftSeed;
  beforeAll(async () => {
    h = await createHarness(factory, { vm: 'move', blocks: 12 });
    seed = await seedNfts(h.db, h.chain);
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const expectError = async (url: string, status: number, message: string) => {
    const res = await h.app.inject({ url });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(status);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ code: status === 404 ? 5 : 3, message, details: [] });
  };

  it('pagination-only routes check limit, then offset, then key', async () => {
    for (const route of [`${NFT}/collections`, `${NFT}/collections/by_name/x`]) {
      await expectError(`${route}?pagination.limit=0&pagination.offset=-1`, 400, LIMIT);
      await expectError(
        `${route}?pagination.offset=-1&pagination.key=%25`,
        400,
        'pagination.offset cannot be negative',
      );
      await expectError(
        `${route}?pagination.key=abc`,
        400,
        'pagination.key must be a valid base64 encoded string',
      );
    }
  });

  it('/collections/by_account: account, then pagination', async () => {
    await expectError(`${NFT}/collections/by_account/nope?pagination.limit=0`, 400, badAccount('nope'));
    await expectError(`${NFT}/collections/by_account/${seed.owners[0]}?pagination.limit=0`, 400, LIMIT);
  });

  it('/collections/{addr}: bad address 400 naming collection_addr, unknown 404', async () => {
    await expectError(
      `${NFT}/collections/0xzz`,
      400,
      badAddr('0xzz', "encoding/hex: invalid byte: U+007A 'z'"),
    );
    await expectError(
      `${NFT}/collections/cosmos1abc`,
      400,
      badAddr('cosmos1abc', "encoding/hex: invalid byte: U+006F 'o'"),
    );
    const long = `0x${'1'.repeat(65)}`;
    await expectError(`${NFT}/collections/${long}`, 400, badAddr(long, 'invalid address format'));
    await expectError(`${NFT}/collections/0x${'ab'.repeat(32)}`, 404, 'nft collection not found');
    await expectError(`${NFT}/collections/0x${seed.orphanCollectionHex}`, 404, 'nft collection not found');
  });

  it('/tokens/by_account: account, collection_addr, pagination, then order_by', async () => {
    const owner = seed.owners[0]!;
    const all = 'collection_addr=0xzz&pagination.limit=0&order_by=name';
    await expectError(`${NFT}/tokens/by_account/nope?${all}`, 400, badAccount('nope'));
    await expectError(
      `${NFT}/tokens/by_account/${owner}?${all}`,
      400,
      badAddr('0xzz', "encoding/hex: invalid byte: U+007A 'z'"),
    );
    await expectError(`${NFT}/tokens/by_account/${owner}?pagination.limit=0&order_by=name`, 400, LIMIT);
    await expectError(`${NFT}/tokens/by_account/${owner}?order_by=name`, 400, ORDER);
    // An unknown account with a bad order_by is still a 400 (checked before the look-up).
    await expectError(`${NFT}/tokens/by_account/${h.chain.accounts[9]}?order_by=name`, 400, ORDER);
    // Empty filters mean none.
    const res = await h.get(`${NFT}/tokens/by_account/${owner}?collection_addr=&token_id=&order_by=`);
    expect(res.status).toBe(200);
  });

  it('/tokens/by_collection: address, pagination, then order_by', async () => {
    await expectError(
      `${NFT}/tokens/by_collection/0xq?pagination.limit=0&order_by=name`,
      400,
      badAddr('0xq', "encoding/hex: invalid byte: U+0071 'q'"),
    );
    const col = `0x${seed.tokens[0]!.collectionHex}`;
    await expectError(`${NFT}/tokens/by_collection/${col}?pagination.limit=0&order_by=name`, 400, LIMIT);
    await expectError(`${NFT}/tokens/by_collection/${col}?order_by=name`, 400, ORDER);
  });

  it('/txs/{addr}/{token_id}: address, then pagination', async () => {
    await expectError(
      `${NFT}/txs/0xg/1?pagination.limit=0`,
      400,
      badAddr('0xg', "encoding/hex: invalid byte: U+0067 'g'"),
    );
    const col = `0x${seed.tokens[0]!.collectionHex}`;
    await expectError(`${NFT}/txs/${col}/1?pagination.limit=0`, 400, LIMIT);
  });

  it('paths without their last segment are 404, and no input gives a 500', async () => {
    for (const path of [
      '/tokens/by_account',
      '/tokens/by_collection',
      `/txs/0x${seed.tokens[0]!.collectionHex}`,
    ]) {
      const res = await h.app.inject({ url: `${NFT}${path}` });
      expect(res.statusCode, path).toBe(404);
    }
    const owner = seed.owners[0]!;
    const col = `0x${seed.tokens[0]!.collectionHex}`;
    const hostile = ['%00', '%FF', "'%20OR%201=1--", '%E2%80%AE', 'a'.repeat(2000), '%25', '..'];
    for (const v of hostile) {
      for (const url of [
        `${NFT}/collections/by_name/${v}`,
        `${NFT}/collections/${v}`,
        `${NFT}/collections/by_account/${v}`,
        `${NFT}/tokens/by_account/${owner}?token_id=${v}&collection_addr=${v}`,
        `${NFT}/tokens/by_account/${owner}?token_id=${v}`,
        `${NFT}/tokens/by_collection/${col}?token_id=${v}&order_by=${v}`,
        `${NFT}/txs/${col}/${v}`,
      ]) {
        const res = await h.app.inject({ url });
        expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        expect(res.headers['content-type']).toBe('application/json');
      }
    }
  });
});
