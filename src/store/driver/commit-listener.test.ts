import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { testBlock } from '../../../test/helpers/block-rows.js';
import { createPostgresTestDb } from '../../../test/helpers/db.js';
import { COMMIT_CHANNEL } from '../../shared/commit-feed.js';
import { createBlockWriter } from '../writers/block-writer.js';
import { committedIn } from './commit-listener.js';

describe('committedIn', () => {
  it("wakes a chain's listener for its own schema's commits and for payloads without a schema", () => {
    expect(committedIn('chain_a:5', 'chain_a')).toBe(true);
    expect(committedIn('chain_b:5', 'chain_a')).toBe(false);
    expect(committedIn('5', 'chain_a')).toBe(true);
    expect(committedIn('chain_b:5', undefined)).toBe(true);
  });
});

const url = process.env.TEST_DATABASE_URL;
describe.runIf(url)('the block writer’s commit announcement (PostgreSQL)', () => {
  it('names the schema it committed in, then the height', async () => {
    const t = await createPostgresTestDb(url!);
    const listener = new pg.Client({ connectionString: t.url });
    try {
      await listener.connect();
      const payload = new Promise<string | undefined>((resolve) =>
        listener.on('notification', (n) => resolve(n.payload)),
      );
      await listener.query(`LISTEN ${COMMIT_CHANNEL}`);
      const writer = await createBlockWriter(t.db);
      await writer.write([
        {
          block: testBlock(1, 0),
          txs: [],
          evmTxs: [],
        },
      ]);
      expect(await payload).toBe('public:1');
    } finally {
      await listener.end();
      await t.dispose();
    }
  });
});
