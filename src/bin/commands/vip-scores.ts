import { Command, Option } from 'commander';
import { databaseTarget, deepFreeze, type DatabaseTarget, type Env } from '../../shared/config.js';
import { InputError } from '../../shared/errors.js';
import { nodeModuleAccounts } from '../../vip/scores/module-accounts.js';
import { parseStage } from '../../vip/options.js';
import { computeScores, type ScoresContext } from '../../vip/scores/compute.js';
import { diffScoresFiles } from '../../vip/scores/diff.js';
import { explainAddress } from '../../vip/scores/explain.js';
import { writeScoresFiles } from '../../vip/scores/output.js';
import { loadRulesFile, type LoadedRules } from '../../vip/scores/rules.js';
import type { WindowSpec } from '../../vip/scores/window.js';
import { resolveL1 } from '../../vip/l1.js';
import { openDatabase } from '../context.js';

type Raw = Record<string, unknown>;

function windowSpec(raw: Raw): WindowSpec {
  if (raw.from !== undefined || raw.to !== undefined) {
    if (raw.from === undefined || raw.to === undefined) {
      throw new InputError('invalid_window', '--from and --to go together');
    }
    return { from: String(raw.from), to: String(raw.to) };
  }
  if (raw.network === undefined && raw.l1Rest === undefined) {
    throw new InputError('invalid_window', 'give --from/--to, or --network mainnet|testnet or --l1-rest URL');
  }
  const l1 = resolveL1(
    raw.network as string | undefined,
    raw.l1Rest as string | undefined,
    raw.vipPackage as string | undefined,
  );
  return { l1: { rest: l1.rest, vipPackage: l1.vipPackage } };
}

/** What `scores compute` and `scores explain` take from flags and env, parsed once at start. */
interface ScoresConfig {
  stage: bigint;
  rulesPath: string;
  window: WindowSpec;
  database: DatabaseTarget;
  prefix: string;
  operator: string | undefined;
  /** The REST node whose module accounts are excluded too (--node-module-accounts). */
  moduleAccountsFrom: string | undefined;
}

function loadScoresConfig(raw: Raw, env: Env): Readonly<ScoresConfig> {
  const rest = (raw.rest as string | undefined) ?? env.VIP_REST_URL;
  if (raw.nodeModuleAccounts === true && !rest)
    throw new InputError('missing_option', '--node-module-accounts needs --rest URL');
  return deepFreeze({
    stage: parseStage(raw.stage, '--stage'),
    rulesPath: String(raw.rules),
    window: windowSpec(raw),
    database: databaseTarget(
      (raw.databaseUrl as string | undefined) ?? env.DATABASE_URL ?? env.DB_DSN,
      (raw.dataDir as string | undefined) ?? env.DATA_DIR,
    ),
    prefix: String(raw.prefix ?? 'init'),
    operator: raw.operator ? String(raw.operator) : undefined,
    moduleAccountsFrom: raw.nodeModuleAccounts === true ? rest : undefined,
  });
}

/** Scores of the configured stage and window, computed on the index (opened read-only). */
async function computeFromIndex(config: ScoresConfig, rules: LoadedRules) {
  const db = await openDatabase(config.database, { readOnly: true, applicationName: 'vip-scores' });
  try {
    const extra = config.moduleAccountsFrom ? await nodeModuleAccounts(config.moduleAccountsFrom) : undefined;
    const ctx: ScoresContext = {
      db,
      prefix: config.prefix,
      ...(config.operator ? { operatorAddress: config.operator } : {}),
      ...(extra ? { extraModuleAccounts: extra } : {}),
    };
    return await computeScores(ctx, { stage: config.stage, rules, window: config.window });
  } finally {
    await db.close();
  }
}

function windowOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--stage <n>', 'VIP stage')
    .requiredOption('--rules <file>', 'rules file (JSON or YAML)')
    .option('--from <height|time>', 'window start: height, or RFC 3339 time (first block at or after it)')
    .option('--to <height|time>', 'window end: height (inclusive), or RFC 3339 time (last block before it)')
    .addOption(new Option('--network <net>', 'L1 for the stage window').choices(['mainnet', 'testnet']))
    .option('--l1-rest <url>', 'L1 REST endpoint for the stage window')
    .option('--vip-package <addr>', 'L1 VIP package address')
    .option('--database-url <url>', 'PostgreSQL URL; absent = embedded PGlite (env DATABASE_URL)')
    .option('--data-dir <dir>', 'PGlite data directory (env DATA_DIR, default ./data)')
    .option('--operator <address>', 'operator key address, for exclude_operator')
    .option('--node-module-accounts', 'also exclude the module accounts the node at --rest lists');
}

/** `rollup-indexer vip scores compute|explain|diff`. */
export function registerVipScores(vip: Command, out: (r: unknown) => void, env: Env): void {
  const scores = vip.command('scores').description('compute VIP scores from the index (docs/vip-scores.md)');

  windowOptions(scores.command('compute').description('write the scores file and its .meta.json'))
    .requiredOption('--out <file>', 'CSV to write (plus <file>.meta.json)')
    .action(async function (this: Command) {
      const raw = this.optsWithGlobals<Raw>();
      const config = loadScoresConfig(raw, env);
      const result = await computeFromIndex(config, await loadRulesFile(config.rulesPath));
      await writeScoresFiles(String(raw.out), result);
      out(result.meta);
    });

  windowOptions(scores.command('explain <address>').description("one address's per-metric breakdown")).action(
    async function (this: Command, address: string) {
      const config = loadScoresConfig(this.optsWithGlobals<Raw>(), env);
      const rules = await loadRulesFile(config.rulesPath);
      const result = await computeFromIndex(config, rules);
      out(explainAddress(result, rules.rules, address, config.prefix));
    },
  );

  scores
    .command('diff <a> <b>')
    .description('compare two scores files; exit 0 when they hold the same scores, 1 when not')
    .action(async (a: string, b: string) => {
      const diff = await diffScoresFiles(a, b);
      out(diff);
      if (!diff.same) process.exitCode = 1;
    });
}
