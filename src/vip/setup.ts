import type { Account, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { ActionContext } from './actions/context.js';
import { createCosmosCore } from './cosmos/core.js';
import { createCosmosRest } from './cosmos/rest.js';
import { createEvmBackend } from './evm/backend.js';
import { createLedgerCosmosSigner, createLedgerEvmAccount, type ApduTransport } from './ledger.js';
import { createMoveBackend } from './move/backend.js';
import { DEFAULT_SEND } from './send.js';
import { createLocalSigner, loadPrivateKey, type CosmosSigner, type KeyAlgo } from './signer.js';
import type { VipBackend, VmType } from './types.js';
import { createWasmBackend } from './wasm/backend.js';

export interface VipOptions {
  vm: VmType;
  rest?: string;
  jsonRpc?: string;
  rpc?: string;
  chainId?: string;
  gasPrices?: string;
  gasAdjustment: number;
  contract?: string;
  keyEnv?: string;
  keyFile?: string;
  keyIndex: number;
  keyType: KeyAlgo;
  ledger: boolean;
  /** Show the address on the Ledger for the operator to compare before anything is signed. */
  ledgerConfirm?: boolean;
  dryRun: boolean;
  prefix: string;
  maxTxGas?: bigint;
  maxTxBytes: number;
  maxBatch?: number;
  confirmTimeoutMs: number;
  pollMs: number;
}

export interface VipDeps {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  out: (record: Record<string, unknown>) => void;
  /** Opens the Ledger transport (USB HID in production; a recorded transport in tests). */
  openLedger?: () => Promise<ApduTransport>;
}

/** Options the CLI fills in when their flag is not given: all but endpoints, chain, key and contract. */
export const VIP_OPTION_DEFAULTS = {
  gasAdjustment: 1.4,
  keyIndex: 0,
  keyType: 'eth_secp256k1',
  ledger: false,
  dryRun: false,
  prefix: 'init',
  maxTxBytes: 1_048_576,
  confirmTimeoutMs: DEFAULT_SEND.confirmTimeoutMs,
  pollMs: DEFAULT_SEND.pollMs,
} as const satisfies Partial<VipOptions>;

const DEFAULT_MAX_TX_GAS: Record<VmType, bigint> = { evm: 10_000_000n, move: 5_000_000n, wasm: 5_000_000n };

function need(value: string | undefined, flag: string): string {
  if (!value) throw new InputError('missing_option', `${flag} is required`);
  return value;
}

async function openLedger(o: VipOptions, deps: VipDeps): Promise<ApduTransport> {
  if (o.keyEnv !== undefined || o.keyFile !== undefined) {
    throw new InputError('invalid_option', '--ledger cannot be combined with --key-env or --key-file');
  }
  if (!deps.openLedger)
    throw new InputError('ledger_unavailable', 'no Ledger transport available in this build');
  return deps.openLedger();
}

async function evmAccount(o: VipOptions, deps: VipDeps) {
  if (o.ledger) {
    return createLedgerEvmAccount(await openLedger(o, deps), o.keyIndex, {
      display: o.ledgerConfirm === true,
    });
  }
  // The reference Foundry script reads PRIVATE_KEY from the environment; accept it the same way.
  const keyEnv = o.keyEnv ?? (o.keyFile === undefined && deps.env.PRIVATE_KEY ? 'PRIVATE_KEY' : undefined);
  const key = await loadPrivateKey(
    {
      ...(keyEnv ? { keyEnv } : {}),
      ...(o.keyFile ? { keyFile: o.keyFile } : {}),
      index: o.keyIndex,
      algo: 'eth_secp256k1',
    },
    deps.env,
  );
  return privateKeyToAccount(`0x${Buffer.from(key).toString('hex')}` as Hex);
}

async function cosmosSigner(o: VipOptions, deps: VipDeps): Promise<CosmosSigner> {
  if (o.ledger) {
    if (o.keyType !== 'eth_secp256k1') {
      throw new InputError(
        'ledger_unsupported',
        '--ledger signs with the Ethereum app, whose keys are eth_secp256k1 (coin type 60); drop --key-type secp256k1',
      );
    }
    // Ledger keys cannot sign SIGN_MODE_DIRECT: the signer uses SIGN_MODE_EIP_191 (amino JSON).
    return createLedgerCosmosSigner(await openLedger(o, deps), o.keyIndex, {
      display: o.ledgerConfirm === true,
    });
  }
  const key = await loadPrivateKey(
    {
      ...(o.keyEnv ? { keyEnv: o.keyEnv } : {}),
      ...(o.keyFile ? { keyFile: o.keyFile } : {}),
      index: o.keyIndex,
      algo: o.keyType,
    },
    deps.env,
  );
  return createLocalSigner(key, o.keyType);
}

function hasKey(o: VipOptions, deps: VipDeps): boolean {
  return (
    o.ledger ||
    o.keyEnv !== undefined ||
    o.keyFile !== undefined ||
    (o.vm === 'evm' && !!deps.env.PRIVATE_KEY)
  );
}

const noKey = () =>
  new InputError('missing_key', 'this needs a key: --key-env NAME, --key-file PATH or --ledger');

/** Stands in for a key in read-only commands: reading works, anything that needs the key fails clearly. */
function keylessEvmAccount(): Account & { signTransaction: NonNullable<Account['signTransaction']> } {
  return {
    type: 'local',
    get address(): Hex {
      throw noKey();
    },
    signTransaction: () => Promise.reject(noKey()),
  } as unknown as Account & { signTransaction: NonNullable<Account['signTransaction']> };
}

function keylessCosmosSigner(o: VipOptions): CosmosSigner {
  return {
    algo: o.keyType,
    signMode: 'direct',
    publicKey: () => Promise.reject(noKey()),
    sign: () => Promise.reject(noKey()),
  };
}

/**
 * Builds the VM backend plus a way to re-bind it to another contract address (after deploy).
 * `readOnly` (status): no key, chain id or gas price is needed unless one is given.
 */
export async function createBackend(
  o: VipOptions,
  deps: VipDeps,
  { readOnly = false }: { readOnly?: boolean } = {},
): Promise<{ backend: VipBackend; bind: (c: string) => VipBackend }> {
  const maxTxGas = o.maxTxGas ?? DEFAULT_MAX_TX_GAS[o.vm];
  const keyless = readOnly && !hasKey(o, deps);
  if (o.vm === 'evm') {
    const rpcUrl = need(o.jsonRpc ?? deps.env.JSON_RPC_URL, '--json-rpc (or JSON_RPC_URL)');
    const account = keyless
      ? keylessEvmAccount()
      : ((await evmAccount(o, deps)) as Account & {
          signTransaction: NonNullable<Account['signTransaction']>;
        });
    const artifact = JSON.parse(await readFile(artifactPath(), 'utf8')) as { bytecode: Hex };
    const make = (contract: string | undefined) =>
      createEvmBackend({
        rpcUrl,
        account,
        bytecode: artifact.bytecode,
        gasAdjustment: o.gasAdjustment,
        ...(contract ? { contract: contract as Hex } : {}),
      });
    return { backend: make(o.contract), bind: (c) => make(c) };
  }
  const rest = createCosmosRest({ baseUrl: need(o.rest, '--rest'), timeoutMs: 15_000 });
  const core = createCosmosCore({
    rest,
    signer: keyless ? keylessCosmosSigner(o) : await cosmosSigner(o, deps),
    chainId: readOnly ? (o.chainId ?? '') : need(o.chainId, '--chain-id'),
    // Only signing reads the price; a read-only run may omit it.
    gasPrice: readOnly ? (o.gasPrices ?? '0uinit') : need(o.gasPrices, '--gas-prices'),
    gasAdjustment: o.gasAdjustment,
    maxTxGas,
    prefix: o.prefix,
  });
  if (o.vm === 'move') {
    const make = (c: string | undefined) =>
      createMoveBackend({ core, rest, prefix: o.prefix, ...(c ? { moduleAddress: c } : {}) });
    return { backend: make(o.contract), bind: (c) => make(c) };
  }
  const make = (c: string | undefined) =>
    createWasmBackend({ core, rest, prefix: o.prefix, ...(c ? { contract: c } : {}) });
  return { backend: make(o.contract), bind: (c) => make(c) };
}

export function artifactPath(): string {
  // src/vip/setup.ts and dist/src/vip/setup.js both sit two levels below the package root's src.
  const here = path.dirname(new URL(import.meta.url).pathname);
  const root = here.includes(`${path.sep}dist${path.sep}`)
    ? path.resolve(here, '..', '..', '..')
    : path.resolve(here, '..', '..');
  return path.join(root, 'contracts', 'VipScore.json');
}

export function actionContext(o: VipOptions, deps: VipDeps, backend: VipBackend): ActionContext {
  return {
    backend,
    logger: deps.logger,
    dryRun: o.dryRun,
    out: deps.out,
    contractId: o.contract ?? 'new',
    send: { confirmTimeoutMs: o.confirmTimeoutMs, pollMs: o.pollMs, rebroadcasts: DEFAULT_SEND.rebroadcasts },
    limits: {
      maxTxGas: o.maxTxGas ?? DEFAULT_MAX_TX_GAS[o.vm],
      maxTxBytes: o.maxTxBytes,
      gasAdjustment: o.gasAdjustment,
      ...(o.maxBatch === undefined ? {} : { maxBatch: o.maxBatch }),
    },
  };
}
