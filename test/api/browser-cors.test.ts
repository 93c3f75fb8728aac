import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usePageOrigin } from '../helpers/browser.js';
import { useCliProcesses } from '../helpers/cli-process.js';
import { writeMigratedPgliteDir } from '../helpers/db.js';
import { chromiumRequirement, needs } from '../helpers/requirements.js';
import { useSimulators } from '../sim/helpers/sims.js';

const browserBinary = await chromiumRequirement();

const TXS = '/indexer/tx/v1/txs?pagination.limit=2';
const BLOCKS = '/indexer/block/v1/blocks?pagination.limit=2';

interface PageCall {
  api: string;
  txs: string;
  blocks: string;
}

/**
 * What a page script does: a plain GET, and one with a header that needs a preflight first. It runs
 * inside the page, so everything it uses comes as its argument.
 */
async function callFromPage({
  api,
  txs,
  blocks,
}: PageCall): Promise<{ plain: string; preflighted: string } | string> {
  try {
    const plain = await fetch(`${api}${txs}`);
    const preflighted = await fetch(`${api}${blocks}`, {
      headers: { 'X-Requested-With': 'XMLHttpRequest' },
    });
    return { plain: await plain.text(), preflighted: await preflighted.text() };
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

/**
 * A browser page on another origin calls the API of a default install (`start` on the embedded
 * database, no CORS_* variables), as Celatone and the wallet do (docs/api.md §0.9); with
 * CORS_ENABLED=false the browser itself must refuse the answers.
 */
describe.runIf(needs(browserBinary))('a browser on another origin', { timeout: 180_000 }, () => {
  const simulator = useSimulators();
  const cli = useCliProcesses();
  const pageOrigin = usePageOrigin('<!doctype html><title>explorer</title><p>explorer</p>');
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-cors-'));
    browser = await chromium.launch({ executablePath: browserBinary.path!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  // `start` on the embedded database, as installed, against a chain held at height 10, so every
  // read is stable; the environment carries no CORS_* variable unless a test sets one.
  const serve = async (name: string, env: Record<string, string> = {}) => {
    const { urls } = await simulator({ vm: 'move', head: 10, fastSignatures: true });
    // Migrated from the run's snapshot: what the browser is let read does not depend on initdb.
    const dataDir = path.join(dir, name);
    await writeMigratedPgliteDir(dataDir);
    const p = cli(['start', '--port', '0'], {
      DATA_DIR: dataDir,
      RPC_URL: urls.rpc,
      REST_URL: urls.rest,
      // What the browser reads does not depend on where blocks are prepared (no thread to load).
      PREPARE_WORKERS: '0',
      ...env,
    });
    const api = (await p.url()).replace('0.0.0.0', '127.0.0.1');
    await p.waitForHeight(10);
    const page = await browser.newPage();
    await page.goto(await pageOrigin());
    return { api, result: await page.evaluate(callFromPage, { api, txs: TXS, blocks: BLOCKS }) };
  };

  it('reads a default install: the page gets the same bodies as a server-side client', async () => {
    const { api, result } = await serve('default');
    const direct = async (route: string) => (await fetch(`${api}${route}`)).text();
    expect(result).toEqual({
      plain: await direct(TXS),
      preflighted: await direct(BLOCKS),
    });
    expect(JSON.parse((result as { plain: string }).plain).txs).toHaveLength(2);
  });

  it('is refused by the browser with CORS_ENABLED=false', async () => {
    const { result } = await serve('closed', { CORS_ENABLED: 'false' });
    expect(result).toMatch(/^TypeError: Failed to fetch/);
  });
});
