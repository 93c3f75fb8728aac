/**
 * The suite's two tiers (docs/testing.md). `npm test` runs every file; `npm run test:fast` leaves
 * out the files below and runs on PGlite only, for the inner loop. Each entry says why it is
 * heavy; the order is the order `npm test` starts them in (longest first, see vitest.config.ts).
 */
export const HEAVY_FILES: readonly { file: string; why: string }[] = [
  { file: 'test/ingest/crash.test.ts', why: 'CLI children killed mid-backfill, paced chains' },
  { file: 'test/api/nft-e2e.test.ts', why: 'a 600-block NFT chain per VM, routes walked ~10 ways' },
  { file: 'test/ingest/long-run.test.ts', why: '1,000 blocks per VM, stopped 4-24 times' },
  { file: 'test/ingest/nft.test.ts', why: 'NFT-heavy and pruned chains per VM' },
  { file: 'test/ingest/crash-stages.test.ts', why: 'seven CLI children, six killed' },
  { file: 'test/bin/ingest-commands.test.ts', why: 'demo, start and indexer as child processes' },
  { file: 'test/bin/repair-commands.test.ts', why: 'verify and reindex children, two SIGKILLed' },
  { file: 'test/ingest/upgrade.test.ts', why: 'every migration on a populated database, per VM' },
  { file: 'test/ingest/e2e.test.ts', why: 'every table and stored tx against the truth per VM' },
  { file: 'test/ingest/db-restart.test.ts', why: 'a PostgreSQL server stopped under a running CLI' },
  { file: 'test/vip/scores-e2e.test.ts', why: 'a VIP stage through the CLI parser with anvil' },
  { file: 'test/bin/replica.test.ts', why: 'a PostgreSQL primary and replica of its own' },
  { file: 'test/bin/readonly-role.test.ts', why: 'a PostgreSQL server of its own' },
  { file: 'test/bin/startup-errors.test.ts', why: 'CLI children and a PostgreSQL server' },
  { file: 'test/api/stream.test.ts', why: 'a live chain served by the CLI' },
  { file: 'test/api/stream-pg.test.ts', why: 'the CLI on a PostgreSQL server of its own' },
  { file: 'test/api/stream-browser.test.ts', why: 'Chromium against the CLI' },
  { file: 'test/api/browser-cors.test.ts', why: 'Chromium against the CLI' },
  {
    file: 'test/deployment/account-stream.test.ts',
    why: 'Chromium and a restart against three live rollups',
  },
  { file: 'test/deployment/isolation-node.test.ts', why: 'three live rollups, one losing its node thrice' },
  { file: 'test/deployment/isolation-shard.test.ts', why: 'a PostgreSQL server of its own stopped' },
  { file: 'test/deployment/clients.test.ts', why: 'the client contracts on three chains of a deployment' },
  { file: 'test/deployment/upgrade.test.ts', why: 'a single-chain index joining two live rollups' },
  { file: 'test/deployment/api-reload.test.ts', why: 'the api as a child process, reloaded by SIGHUP' },
  { file: 'test/deployment/chains-cli.test.ts', why: 'start as a child process' },
  { file: 'test/deployment/prepare-pool.test.ts', why: 'two chains on one pool of prepare threads' },
];

/**
 * Files of a quarter-minute or more of CPU on PGlite alone (end-to-end chains, fuzzing, replays, a
 * full disk): `npm test` only, started after the heavy ones. The fast tier keeps a file of each
 * room's own tests (unit tests beside the code, route and store tests on small seeded chains).
 */
export const SLOW_FILES: readonly string[] = [
  'test/deployment/account-routes.test.ts',
  'test/deployment/deployment.test.ts',
  'test/ingest/endpoint-pool-surfaces.test.ts',
  'test/api/nft-routes.test.ts',
  'test/ingest/faults.test.ts',
  'test/api/e2e.test.ts',
  'test/api/rich-list-e2e.test.ts',
  'test/ingest/nft-lookup-outage.test.ts',
  'test/ingest/outage.test.ts',
  'test/ingest/nft-replay.test.ts',
  'test/api/stages-halted-head-e2e.test.ts',
  'test/api/fuzz.test.ts',
  'test/sim/tx-bytes.test.ts',
  'test/ingest/prepare-workers.test.ts',
  'test/ingest/rich-list-modules.test.ts',
  'test/ingest/undecoded.test.ts',
  'src/store/driver/pglite.test.ts',
  'test/vip/scores-compute-cli.test.ts',
  'test/ingest/endpoint-pool.test.ts',
  'test/ingest/repair.test.ts',
  'test/ingest/repair-stage.test.ts',
  'test/ingest/repair-state.test.ts',
];

/** Every file `npm run test:fast` leaves out, in the order `npm test` starts them. */
export const FULL_TIER_ONLY: readonly string[] = [...HEAVY_FILES.map((f) => f.file), ...SLOW_FILES];
