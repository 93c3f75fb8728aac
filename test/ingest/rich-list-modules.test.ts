import { describe, expect, it } from 'vitest';
import { accountBytesFromString } from '../../src/shared/address.js';
import { createRichListWriter } from '../../src/store/writers/rich-list-writer.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { ingestFrom, startSimulator } from '../helpers/ingest.js';
import { excludedModuleAccounts, expectRichListMatchesTruth } from '../helpers/truth-rich-list.js';

const HEAD = 60;
const STOP = 30;

/**
 * Module accounts are a Move and Wasm matter (EVM has none to leave out); the rows are dropped by the
 * same SQL on either store: with both stores in the run each VM runs once (heavySuiteVms).
 */
describe.each(testDbFactories())('rich list and module accounts on $name', (factory) => {
  it.each(heavySuiteVms(factory.name).filter((vm) => vm !== 'evm'))(
    '%s: balances an earlier version stored for a minter/burner module account are dropped, and it stays out',
    async (vm) => {
      const { db, dispose } = await factory.create();
      const modules: Buffer[] = [];
      const accountRows = async () => {
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM rich_list r JOIN account_dict d ON d.id = r.account_id
            WHERE d.account = ANY($1::bytea[])`,
          [modules],
        );
        return rows[0]!.n;
      };
      // An earlier version indexed to STOP and stored rows for the module accounts; this version's
      // indexer then starts on the same database (a new run: the first batch deletes them).
      const { sim, urls } = await startSimulator({
        vm,
        head: HEAD,
        txsPerBlock: '0-6',
        sim: { fastSignatures: true },
      });
      try {
        await ingestFrom({ db, vm, urls, untilHeight: STOP });
        await expectRichListMatchesTruth(db, sim, STOP);
        for (const address of await excludedModuleAccounts(sim)) {
          modules.push(Buffer.from(accountBytesFromString(address, 'init')));
        }
        expect(modules.length).toBeGreaterThan(0);
        // What a version that kept module accounts would have stored.
        const writer = createRichListWriter();
        await db.transaction((tx) =>
          writer.set(
            tx,
            sim.truth
              .denoms()
              .flatMap((denom) => modules.map((account) => ({ denom, account, amount: 1_000_000n }))),
          ),
        );
        writer.committed();
        expect(await accountRows()).toBe(modules.length * sim.truth.denoms().length);

        await ingestFrom({ db, vm, urls, untilHeight: HEAD });
        await expectRichListMatchesTruth(db, sim, HEAD);
        expect(await accountRows()).toBe(0);
      } finally {
        await sim.close();
        await dispose();
      }
    },
    120_000,
  );
});
