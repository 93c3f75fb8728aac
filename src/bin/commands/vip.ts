import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { pino } from 'pino';
import { createPublicClient, http } from 'viem';
import { InputError } from '../../shared/errors.js';
import { readAbciInfo } from '../../vip/abci.js';
import { runAdmin } from '../../vip/actions/admin.js';
import { deploy } from '../../vip/actions/deploy.js';
import { finalizeStages } from '../../vip/actions/finalize.js';
import { readStatus } from '../../vip/actions/status.js';
import { updateScores } from '../../vip/actions/update-scores.js';
import { readL1Stage, resolveL1 } from '../../vip/l1.js';
import type { DuplicatePolicy } from '../../vip/scores-file.js';
import { openLedgerUsb } from '../../vip/ledger-usb.js';
import type { ApduTransport } from '../../vip/ledger.js';
import {
  actionContext,
  createBackend,
  VIP_OPTION_DEFAULTS as DEFAULTS,
  type VipDeps,
  type VipOptions,
} from '../../vip/setup.js';
import type { VipBackend, VmType } from '../../vip/types.js';
import type { ActionContext } from '../../vip/actions/context.js';
import { registerVipScores } from './vip-scores.js';

type Raw = Record<string, unknown>;

function parseStage(value: unknown, flag: string): bigint {
  const text = String(value ?? '');
  if (!/^\d+$/.test(text) || BigInt(text) === 0n || BigInt(text) >= 1n << 64n) {
    throw new InputError(
      'invalid_stage',
      `${flag} must be a whole number between 1 and 2^64-1, got "${text}"`,
    );
  }
  return BigInt(text);
}

function intOpt(value: unknown, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(String(value))) {
    throw new InputError('invalid_option', `${flag} expects a whole number, got "${String(value)}"`);
  }
  return Number(value);
}

function positive(value: unknown, fallback: number, flag: string): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InputError('invalid_option', `${flag} expects a positive number, got "${String(value)}"`);
  return n;
}

function vipOptions(raw: Raw, env: NodeJS.ProcessEnv): VipOptions {
  const vm = String(raw.vm ?? env.VIP_VM ?? '') as VmType;
  if (!['evm', 'move', 'wasm'].includes(vm))
    throw new InputError('invalid_vm', '--vm evm|move|wasm is required');
  const str = (k: string, e?: string) => (raw[k] as string | undefined) ?? (e ? env[e] : undefined);
  const opt = <T>(k: string, v: T | undefined) => (v === undefined ? {} : { [k]: v });
  return {
    vm,
    ...opt('rest', str('rest', 'VIP_REST_URL')),
    ...opt('jsonRpc', str('jsonRpc', 'JSON_RPC_URL')),
    ...opt('rpc', str('rpc', 'VIP_RPC_URL')),
    ...opt('chainId', str('chainId', 'VIP_CHAIN_ID')),
    ...opt('gasPrices', str('gasPrices', 'VIP_GAS_PRICES')),
    ...opt('contract', str('contract', 'VIP_CONTRACT')),
    ...opt('keyEnv', str('keyEnv')),
    ...opt('keyFile', str('keyFile')),
    gasAdjustment: positive(raw.gasAdjustment, DEFAULTS.gasAdjustment, '--gas-adjustment'),
    keyIndex: intOpt(raw.keyIndex, DEFAULTS.keyIndex, '--key-index'),
    keyType: (raw.keyType as VipOptions['keyType'] | undefined) ?? DEFAULTS.keyType,
    ledger: raw.ledger === true,
    ledgerConfirm: raw.ledgerConfirm === true,
    dryRun: raw.dryRun === true,
    prefix: String(raw.prefix ?? DEFAULTS.prefix),
    ...opt(
      'maxTxGas',
      raw.maxTxGas === undefined ? undefined : BigInt(intOpt(raw.maxTxGas, 0, '--max-tx-gas')),
    ),
    maxTxBytes: intOpt(raw.maxTxBytes, DEFAULTS.maxTxBytes, '--max-tx-bytes'),
    ...opt(
      'maxBatch',
      raw.maxBatch === undefined
        ? undefined
        : positive(intOpt(raw.maxBatch, 1, '--max-batch'), 1, '--max-batch'),
    ),
    confirmTimeoutMs: intOpt(raw.confirmTimeoutMs, DEFAULTS.confirmTimeoutMs, '--confirm-timeout-ms'),
    pollMs: intOpt(raw.pollMs, DEFAULTS.pollMs, '--poll-ms'),
  };
}

async function evmChainId(o: VipOptions): Promise<string> {
  if (o.vm !== 'evm' || !o.jsonRpc) throw new InputError('missing_option', '--chain-id is required');
  return String(await createPublicClient({ transport: http(o.jsonRpc) }).getChainId());
}

function defaultDeps(): VipDeps {
  const logger = pino(
    {
      level: process.env.LOG_LEVEL ?? 'info',
      name: 'vip',
      redact: ['mnemonic', 'privateKey', 'key', '*.privateKey'],
    },
    pino.destination(2),
  );
  return {
    env: process.env,
    logger,
    out: (r) => console.log(JSON.stringify(r, null, 2)),
    openLedger: openLedgerUsb,
  };
}

/** Opens the Ledger at most once per command and closes it afterwards (a HID handle keeps the process alive). */
function ledgerSession(deps: VipDeps): { deps: VipDeps; close: () => Promise<void> } {
  let opened: Promise<ApduTransport> | undefined;
  const open = deps.openLedger;
  return {
    deps: open ? { ...deps, openLedger: () => (opened ??= open()) } : deps,
    close: async () => {
      const t = await opened?.catch(() => undefined);
      await t?.close?.().catch(() => undefined);
    },
  };
}

/** `rollup-indexer vip <cmd>`; deps are injectable so tests run the real commands in-process. */
export function registerVip(program: Command, deps: VipDeps = defaultDeps()): void {
  const vip = program
    .command('vip')
    .description('VIP score contract operations (EVM, Move, Wasm)')
    .addOption(new Option('--vm <vm>', 'rollup VM').choices(['evm', 'move', 'wasm']))
    .option('--rest <url>', 'Cosmos REST endpoint (Move/Wasm)')
    .option('--json-rpc <url>', 'EVM JSON-RPC endpoint (or JSON_RPC_URL)')
    .option('--rpc <url>', 'CometBFT RPC endpoint (for the rollup version)')
    .option('--chain-id <id>', 'rollup chain id')
    .option('--gas-prices <price>', 'e.g. 0.015umin')
    .option('--gas-adjustment <n>', 'multiplier on simulated gas', String(DEFAULTS.gasAdjustment))
    .option('--contract <address>', 'score contract (EVM/Wasm) or module address (Move)')
    .option('--key-env <NAME>', 'environment variable holding a mnemonic or hex private key')
    .option('--key-file <path>', 'file holding a mnemonic or hex private key')
    .option('--key-index <n>', 'BIP-44 address index', String(DEFAULTS.keyIndex))
    .addOption(
      new Option('--key-type <type>', 'Cosmos key type')
        .choices(['eth_secp256k1', 'secp256k1'])
        .default(DEFAULTS.keyType),
    )
    .option('--ledger', 'sign on a Ledger over USB (Ethereum app; Move/Wasm sign SIGN_MODE_EIP_191)')
    .option('--ledger-confirm', 'show the signing address on the Ledger before using it')
    .option('--dry-run', 'simulate and print the exact messages and fees; never sign')
    .option('--prefix <hrp>', 'bech32 prefix', DEFAULTS.prefix)
    .option('--max-tx-gas <n>', 'gas ceiling per tx used for batch sizing')
    .option('--max-tx-bytes <n>', 'tx size ceiling', String(DEFAULTS.maxTxBytes))
    .option('--max-batch <n>', 'upper bound on entries per tx')
    .option(
      '--confirm-timeout-ms <n>',
      'wait for inclusion before re-checking',
      String(DEFAULTS.confirmTimeoutMs),
    )
    .option('--poll-ms <n>', 'tx lookup interval', String(DEFAULTS.pollMs));

  const run = (fn: (o: VipOptions, raw: Raw, deps: VipDeps) => Promise<Record<string, unknown>>) =>
    async function (this: Command) {
      const raw = this.optsWithGlobals<Raw>();
      const session = ledgerSession(deps);
      try {
        deps.out(await fn(vipOptions(raw, deps.env), raw, session.deps));
      } finally {
        await session.close();
      }
    };
  const withBackend = (
    fn: (
      ctx: ActionContext,
      o: VipOptions,
      raw: Raw,
      bind: (c: string) => VipBackend,
    ) => Promise<Record<string, unknown>>,
  ) =>
    run(async (o, raw, d) => {
      const { backend, bind } = await createBackend(o, d);
      return fn(actionContext(o, d, backend), o, raw, bind);
    });

  vip
    .command('l1-stage')
    .description('current VIP stage on L1')
    .addOption(new Option('--network <net>').choices(['mainnet', 'testnet']))
    .option('--l1-rest <url>')
    .option('--vip-package <addr>')
    .action(async function (this: Command) {
      const raw = this.optsWithGlobals<Raw>();
      const l1 = resolveL1(
        raw.network as string | undefined,
        raw.l1Rest as string | undefined,
        raw.vipPackage as string | undefined,
      );
      const s = await readL1Stage(l1.rest, l1.vipPackage);
      deps.out({
        stage: String(s.stage),
        stageStartTime: s.stageStartTime?.toString() ?? null,
        stageEndTime: s.stageEndTime?.toString() ?? null,
        vipPackage: l1.vipPackage,
      });
    });

  vip
    .command('version')
    .description('rollup version from /abci_info')
    .action(async function (this: Command) {
      const raw = this.optsWithGlobals<Raw>();
      const rpc = (raw.rpc as string | undefined) ?? deps.env.VIP_RPC_URL;
      if (!rpc) throw new InputError('missing_option', '--rpc is required');
      deps.out({ ...(await readAbciInfo(rpc)) });
    });

  vip
    .command('deploy')
    .description('deploy the score contract and write the deploy record')
    .option('--init-stage <n>', 'initial stage (or INIT_STAGE)')
    .option('--module <path>', 'Move: compiled vip_score.mv')
    .option('--deployer <addr>', 'Move: deployer to add (default: the publisher)')
    .option('--wasm <path>', 'Wasm: contract code')
    .option('--allow <addr...>', 'Wasm: allow list (default: the sender)')
    .option('--admin <addr>', 'Wasm: admin (default: the sender)')
    .option('--label <label>', 'Wasm: label', 'vip_score')
    .option('--record <path>', 'deploy record JSON path')
    .addOption(new Option('--network <net>').choices(['mainnet', 'testnet']))
    .action(
      withBackend(async (ctx, o, raw, bind) => {
        const initStage = parseStage(raw.initStage ?? deps.env.INIT_STAGE, '--init-stage');
        const rollupVersion = o.rpc ? (await readAbciInfo(o.rpc)).version : undefined;
        const file = async (k: string) =>
          raw[k] ? new Uint8Array(await readFile(String(raw[k]))) : undefined;
        const moduleBytes = await file('module');
        const wasmBytes = await file('wasm');
        return deploy(ctx, {
          vm: o.vm,
          chainId: o.chainId ?? (await evmChainId(o)),
          initStage,
          recordPath: String(raw.record ?? `vip-deploy-${o.vm}-${Date.now()}.json`),
          bind,
          ...(raw.network ? { network: raw.network as 'mainnet' | 'testnet' } : {}),
          ...(rollupVersion ? { rollupVersion } : {}),
          ...(moduleBytes ? { moduleBytes } : {}),
          ...(wasmBytes ? { wasmBytes } : {}),
          ...(raw.deployer ? { deployer: String(raw.deployer) } : {}),
          ...(raw.allow ? { allowList: raw.allow as string[] } : {}),
          ...(raw.admin ? { admin: String(raw.admin) } : {}),
          label: String(raw.label),
        });
      }),
    );

  const addrCommand = (name: string, kind: 'allow' | 'disallow' | 'addDeployer', what: string) =>
    vip
      .command(`${name} <address>`)
      .description(what)
      .action(async function (this: Command, address: string) {
        const o = vipOptions(this.optsWithGlobals<Raw>(), deps.env);
        const session = ledgerSession(deps);
        try {
          const { backend } = await createBackend(o, session.deps);
          const ctx = actionContext(o, session.deps, backend);
          deps.out(await runAdmin(ctx, { kind, addr: backend.normaliseAddress(address) }));
        } finally {
          await session.close();
        }
      });
  addrCommand('allow', 'allow', 'add an address to the allow list (EVM/Wasm)');
  addrCommand('disallow', 'disallow', 'remove an address from the allow list (EVM/Wasm)');
  addrCommand('add-deployer', 'addDeployer', 'publisher adds a deployer (Move)');

  vip
    .command('set-init-stage')
    .description('deployer sets the initial stage (Move)')
    .requiredOption('--stage <n>')
    .action(
      withBackend((ctx, _o, raw) =>
        runAdmin(ctx, { kind: 'setInitStage', stage: parseStage(raw.stage, '--stage') }),
      ),
    );

  vip
    .command('update-scores')
    .description('write a stage’s scores from a CSV/JSON file in simulated, confirmed, resumable batches')
    .requiredOption('--stage <n>')
    .requiredOption('--scores <file>')
    .addOption(new Option('--duplicates <policy>').choices(['reject', 'sum', 'last']).default('reject'))
    .option('--progress <file>', 'resume record (default .vip-progress/…)')
    .action(
      withBackend((ctx, _o, raw) =>
        updateScores(ctx, {
          stage: parseStage(raw.stage, '--stage'),
          scoresPath: String(raw.scores),
          duplicates: raw.duplicates as DuplicatePolicy,
          ...(raw.progress ? { progressPath: String(raw.progress) } : {}),
        }),
      ),
    );

  vip
    .command('finalize')
    .description('finalize an open stage (and, with --through, the following ones in order)')
    .requiredOption('--stage <n>')
    .option('--through <n>', 'catch up to this stage, one tx each')
    .addOption(new Option('--network <net>', 'check against the L1 stage').choices(['mainnet', 'testnet']))
    .option('--l1-rest <url>', 'check against the L1 stage at this REST endpoint')
    .action(
      withBackend(async (ctx, _o, raw) => {
        let l1Stage: bigint | undefined;
        if (raw.network || raw.l1Rest) {
          const l1 = resolveL1(
            raw.network as string | undefined,
            raw.l1Rest as string | undefined,
            undefined,
          );
          l1Stage = (await readL1Stage(l1.rest, l1.vipPackage)).stage;
        }
        return finalizeStages(ctx, {
          stage: parseStage(raw.stage, '--stage'),
          ...(raw.through ? { through: parseStage(raw.through, '--through') } : {}),
          ...(l1Stage === undefined ? {} : { l1Stage }),
        });
      }),
    );

  registerVipScores(vip, (r) => deps.out(r as Record<string, unknown>));

  vip
    .command('status')
    .description('init stage, open stage, finalized stages, totals, writers (no key needed)')
    .action(
      run(async (o, _raw, d) => {
        const { backend } = await createBackend(o, d, { readOnly: true });
        return readStatus({ backend });
      }),
    );
}
