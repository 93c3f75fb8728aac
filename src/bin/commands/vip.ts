import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { pino } from 'pino';
import { requestOnce, unreachable } from '../../node/transport.js';
import { loadLogOptions } from '../../shared/config.js';
import { AppError, InputError } from '../../shared/errors.js';
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
import { loadVipOptions, parseStage, type VipFlags } from '../../vip/options.js';
import {
  actionContext,
  createBackend,
  VIP_OPTION_DEFAULTS as DEFAULTS,
  type VipDeps,
  type VipOptions,
} from '../../vip/setup.js';
import type { VipBackend } from '../../vip/types.js';
import type { ActionContext } from '../../vip/actions/context.js';
import { registerVipScores } from './vip-scores.js';

type Raw = VipFlags;
type Output = Record<string, unknown>;

/** The chain id an EVM rollup's JSON-RPC reports (`eth_chainId`), for a deploy without --chain-id. */
async function evmChainId(o: VipOptions): Promise<string> {
  if (o.vm !== 'evm' || !o.jsonRpc) throw new InputError('missing_option', '--chain-id is required');
  const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };
  const res = await requestOnce(
    { name: 'JSON-RPC', baseUrl: o.jsonRpc, timeoutMs: 10_000 },
    { method: 'POST', path: '', body: JSON.stringify(call) },
  ).catch((err: unknown) => {
    throw unreachable('JSON-RPC', o.jsonRpc ?? '', err);
  });
  const { result } = JSON.parse(res.text) as { result?: unknown };
  if (typeof result !== 'string' || !/^0x[0-9a-f]+$/i.test(result))
    throw new AppError('bad_response', `eth_chainId answered ${res.text.slice(0, 200)}`);
  return BigInt(result).toString();
}

function defaultDeps(): VipDeps {
  const logger = pino(
    {
      level: loadLogOptions(process.env).logLevel,
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
  const vip = withVipOptions(
    program.command('vip').description('VIP score contract operations (EVM, Move, Wasm)'),
  );
  const actions = vipActions(deps);
  registerChainReads(vip, deps, actions);
  registerDeploy(vip, deps, actions);
  registerAdminCommands(vip, actions);
  registerStageCommands(vip, actions);
  registerVipScores(vip, (r) => deps.out(r as Output), deps.env);
}

/** The options every `vip` sub-command shares (see loadVipOptions for how they are read). */
function withVipOptions(vip: Command): Command {
  return vip
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
}

type BackendAction = (
  ctx: ActionContext,
  o: VipOptions,
  raw: Raw,
  bind: (c: string) => VipBackend,
) => Promise<Output>;

/** How a sub-command runs: options parsed once, a Ledger opened at most once, the result printed. */
interface VipActions {
  run(fn: (o: VipOptions, raw: Raw, deps: VipDeps, args: string[]) => Promise<Output>): () => Promise<void>;
  /** The same, with the VM's backend (and a signer unless it only reads). */
  withBackend(fn: BackendAction): () => Promise<void>;
}

function vipActions(deps: VipDeps): VipActions {
  const run: VipActions['run'] = (fn) =>
    async function (this: Command) {
      const raw = this.optsWithGlobals<Raw>();
      const o = loadVipOptions(raw, deps.env);
      const session = ledgerSession(deps);
      try {
        deps.out(await fn(o, raw, session.deps, this.args));
      } finally {
        await session.close();
      }
    };
  return {
    run,
    withBackend: (fn) =>
      run(async (o, raw, d) => {
        const { backend, bind } = await createBackend(o, d);
        return fn(actionContext(o, d, backend), o, raw, bind);
      }),
  };
}

/** Reads that need no key: the L1 stage, the rollup version, the contract's status. */
function registerChainReads(vip: Command, deps: VipDeps, actions: VipActions): void {
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
    .command('status')
    .description('init stage, open stage, finalized stages, totals, writers (no key needed)')
    .action(
      actions.run(async (o, _raw, d) => {
        const { backend } = await createBackend(o, d, { readOnly: true });
        return readStatus({ backend });
      }),
    );
}

function registerDeploy(vip: Command, deps: VipDeps, actions: VipActions): void {
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
      actions.withBackend(async (ctx, o, raw, bind) => {
        const initStage = parseStage(raw.initStage ?? deps.env.INIT_STAGE, '--init-stage');
        const rollupVersion = o.rpc ? (await readAbciInfo(o.rpc)).version : undefined;
        const moduleBytes = await readCodeFile(raw.module);
        const wasmBytes = await readCodeFile(raw.wasm);
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
}

async function readCodeFile(file: unknown): Promise<Uint8Array | undefined> {
  return file ? new Uint8Array(await readFile(String(file))) : undefined;
}

/** Who may write scores, who may deploy, and the initial stage. */
function registerAdminCommands(vip: Command, actions: VipActions): void {
  const addressCommand = (name: string, kind: 'allow' | 'disallow' | 'addDeployer', what: string) =>
    vip
      .command(`${name} <address>`)
      .description(what)
      .action(
        actions.run(async (o, _raw, d, [address]) => {
          const { backend } = await createBackend(o, d);
          const ctx = actionContext(o, d, backend);
          return runAdmin(ctx, { kind, addr: backend.normaliseAddress(address ?? '') });
        }),
      );
  addressCommand('allow', 'allow', 'add an address to the allow list (EVM/Wasm)');
  addressCommand('disallow', 'disallow', 'remove an address from the allow list (EVM/Wasm)');
  addressCommand('add-deployer', 'addDeployer', 'publisher adds a deployer (Move)');

  vip
    .command('set-init-stage')
    .description('deployer sets the initial stage (Move)')
    .requiredOption('--stage <n>')
    .action(
      actions.withBackend((ctx, _o, raw) =>
        runAdmin(ctx, { kind: 'setInitStage', stage: parseStage(raw.stage, '--stage') }),
      ),
    );
}

/** A stage's life: its scores written, then the stage finalized. */
function registerStageCommands(vip: Command, actions: VipActions): void {
  vip
    .command('update-scores')
    .description('write a stage’s scores from a CSV/JSON file in simulated, confirmed, resumable batches')
    .requiredOption('--stage <n>')
    .requiredOption('--scores <file>')
    .addOption(new Option('--duplicates <policy>').choices(['reject', 'sum', 'last']).default('reject'))
    .option('--progress <file>', 'resume record (default .vip-progress/…)')
    .action(
      actions.withBackend((ctx, _o, raw) =>
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
      actions.withBackend(async (ctx, _o, raw) => {
        const l1Stage = await l1StageToCheck(raw);
        return finalizeStages(ctx, {
          stage: parseStage(raw.stage, '--stage'),
          ...(raw.through ? { through: parseStage(raw.through, '--through') } : {}),
          ...(l1Stage === undefined ? {} : { l1Stage }),
        });
      }),
    );
}

/** The L1's current stage when --network or --l1-rest asks for the check, else undefined. */
async function l1StageToCheck(raw: Raw): Promise<bigint | undefined> {
  if (!raw.network && !raw.l1Rest) return undefined;
  const l1 = resolveL1(raw.network as string | undefined, raw.l1Rest as string | undefined, undefined);
  return (await readL1Stage(l1.rest, l1.vipPackage)).stage;
}
