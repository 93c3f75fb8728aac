#!/usr/bin/env node
import { Command } from 'commander';
import { packageVersion } from '../shared/version.js';
import { runCli } from './run.js';

/**
 * Each command family's module, loaded on demand: the families import large, unrelated code (the
 * simulator, the VIP tooling, the HTTP API), and loading all of it cost the indexer ~0.9 s of CPU
 * at every start.
 */
const families = {
  ingest: async () => (await import('./commands/ingest.js')).registerIngestCommands,
  api: async () => (await import('./commands/api.js')).registerApi,
  sim: async () => (await import('./commands/sim.js')).registerSim,
  vip: async () => (await import('./commands/vip.js')).registerVip,
};
const familyOf: Record<string, keyof typeof families> = {
  start: 'ingest',
  indexer: 'ingest',
  demo: 'ingest',
  migrate: 'ingest',
  'rerender-documents': 'ingest',
  verify: 'ingest',
  reindex: 'ingest',
  api: 'api',
  sim: 'sim',
  vip: 'vip',
};

const program = new Command('rollup-indexer')
  .description('Indexer, read API, VIP operator and simulator for Initia rollups')
  .version(packageVersion());

// A known command registers its family alone; anything else (help, a typo) registers them all so
// commander can list and suggest every command.
const named = familyOf[process.argv[2] ?? ''];
for (const family of named ? [named] : (Object.keys(families) as (keyof typeof families)[])) {
  (await families[family]())(program);
}

await runCli(program, process.argv);
// A failed command ends even if a library left a handle open (a half-opened embedded database
// keeps the event loop alive).
if (process.exitCode) process.exit();
// A finished command ends too: once a command has returned, anything still holding the event loop
// is a leak (seen once: `indexer --until` with a chains file idle for 30 minutes on one timer). It
// is named on stderr, so the leak can be found, and the process exits with the command's status.
// The timer itself holds nothing: a process that ends by itself never sees it.
setTimeout(() => {
  const held = process.getActiveResourcesInfo().join(', ');
  process.stderr.write(
    `rollup-indexer: the command ended but the process did not (held by: ${held}); exiting\n`,
  );
  process.exit();
}, 5_000).unref();
