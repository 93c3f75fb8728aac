import { Command, Option } from 'commander';
import { databaseTarget } from '../../shared/config.js';
import { InputError } from '../../shared/errors.js';
import { nodeModuleAccounts } from '../../vip/scores/module-accounts.js';
import { parseStage } from '../../vip/options.js';
import { computeScores, type ScoresContext } from '../../vip/scores/compute.js';
import { diffScoresFiles } from '../../vip/scores/diff.js';
import { explainAddress } from '../../vip/scores/explain.js';
import { writeScoresFiles } from '../../vip/scores/output.js';
import { loadRulesFile } from '../../vip/scores/rules.js';
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

async function withScores<T>(raw: Raw, fn: (ctx: ScoresContext) => Promise<T>): Promise<T> {
  const target = databaseTarget(
    (raw.databaseUrl as string | undefined) ?? process.env.DATABASE_URL ?? process.env.DB_DSN,
    (raw.dataDir as string | undefined) ?? process.env.DATA_DIR,
  );
  const db = await openDatabase(target, { readOnly: true, applicationName: 'vip-scores' });
  try {
    const rest = (raw.rest as string | undefined) ?? process.env.VIP_REST_URL;
    const extra = raw.nodeModuleAccounts === true ? await nodeModuleAccounts(requireRest(rest)) : undefined;
    return await fn({
      db,
      prefix: String(raw.prefix ?? 'init'),
      ...(raw.operator ? { operatorAddress: String(raw.operator) } : {}),
      ...(extra ? { extraModuleAccounts: extra } : {}),
    });
  } finally {
    await db.close();
  }
}

function requireRest(rest: string | undefined): string {
  if (!rest) throw new InputError('missing_option', '--node-module-accounts needs --rest URL');
  return rest;
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
export function registerVipScores(vip: Command, out: (r: unknown) => void): void {
  const scores = vip.command('scores').description('compute VIP scores from the index (docs/vip-scores.md)');

  windowOptions(scores.command('compute').description('write the scores file and its .meta.json'))
    .requiredOption('--out <file>', 'CSV to write (plus <file>.meta.json)')
    .action(async function (this: Command) {
      const raw = this.optsWithGlobals<Raw>();
      const rules = await loadRulesFile(String(raw.rules));
      const result = await withScores(raw, (ctx) =>
        computeScores(ctx, { stage: parseStage(raw.stage, '--stage'), rules, window: windowSpec(raw) }),
      );
      await writeScoresFiles(String(raw.out), result);
      out(result.meta);
    });

  windowOptions(scores.command('explain <address>').description("one address's per-metric breakdown")).action(
    async function (this: Command, address: string) {
      const raw = this.optsWithGlobals<Raw>();
      const rules = await loadRulesFile(String(raw.rules));
      const explained = await withScores(raw, async (ctx) => {
        const result = await computeScores(ctx, {
          stage: parseStage(raw.stage, '--stage'),
          rules,
          window: windowSpec(raw),
        });
        return explainAddress(result, rules.rules, address, ctx.prefix ?? 'init');
      });
      out(explained);
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
