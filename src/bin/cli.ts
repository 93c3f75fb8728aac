#!/usr/bin/env node
import { Command } from 'commander';
import { registerSim } from './commands/sim.js';
import { registerVip } from './commands/vip.js';
import { registerIngestCommands } from './commands/ingest.js';
import { registerApi } from './commands/api.js';
import { runCli } from './run.js';

const program = new Command('rollup-indexer')
  .description('Indexer, read API, VIP operator and simulator for Initia rollups')
  .version('0.1.0');

registerIngestCommands(program);
registerApi(program);
registerSim(program);
registerVip(program);

await runCli(program, process.argv);
// A failed command ends even if a library left a handle open (a half-opened embedded database
// keeps the event loop alive).
if (process.exitCode) process.exit();
