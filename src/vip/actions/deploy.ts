import { writeFile } from 'node:fs/promises';
import { AppError, InputError } from '../../shared/errors.js';
import { sendOp } from '../send.js';
import type { TxResult, VipBackend, VmType } from '../types.js';
import type { ActionContext } from './context.js';

export interface DeployInput {
  vm: VmType;
  chainId: string;
  initStage: bigint;
  network?: 'mainnet' | 'testnet';
  rollupVersion?: string;
  recordPath: string;
  /** Move: compiled vip_score.mv bytes. */
  moduleBytes?: Uint8Array;
  /** Move: deployer to add (default: the publisher itself, as the docs do). */
  deployer?: string;
  /** Wasm: code bytes, allow list (default: sender), admin (default: sender), label. */
  wasmBytes?: Uint8Array;
  allowList?: string[];
  admin?: string;
  label?: string;
  /** Builds a backend bound to the created contract (EVM/Wasm), for the post-deploy checks. */
  bind: (contract: string) => VipBackend;
}

export interface DeployRecord {
  vm: VmType;
  chainId: string;
  network: string | null;
  contractAddress: string;
  initStage: string;
  deployTxHash: string;
  txHashes: string[];
  codeId?: string;
  rollupVersion: string | null;
  sender: string;
  deployedAt: string;
}

/** Deploys, checks the result on chain, writes the record (docs/vip-contracts.md §0.5). */
export async function deploy(ctx: ActionContext, input: DeployInput): Promise<Record<string, unknown>> {
  if (input.initStage === 0n) throw new InputError('invalid_stage', 'the init stage must be ≥ 1');
  const { backend } = ctx;
  const sender = await backend.senderAddress();
  if (ctx.dryRun) return deployDryRun(ctx, input, sender);
  const steps = { evm: deployEvmContract, move: deployMoveModule, wasm: deployWasmContract }[input.vm];
  const { contractAddress, codeId, txs } = await steps(ctx, input, sender);
  await checkDeployed(input, contractAddress);
  if (input.rollupVersion === undefined) {
    ctx.logger.warn(
      'no --rpc given: the deploy record has no rollup version (the whitelist proposal needs it)',
    );
  }
  const record: DeployRecord = {
    vm: input.vm,
    chainId: input.chainId,
    network: input.network ?? null,
    contractAddress,
    initStage: String(input.initStage),
    deployTxHash: (txs[0] as TxResult).hash,
    txHashes: txs.map((t) => t.hash),
    ...(codeId === undefined ? {} : { codeId: String(codeId) }),
    rollupVersion: input.rollupVersion ?? null,
    sender,
    deployedAt: new Date().toISOString(),
  };
  await writeFile(input.recordPath, JSON.stringify(record, null, 2) + '\n');
  return {
    record,
    recordPath: input.recordPath,
    ...(input.network === 'mainnet' ? { proposal: proposalMessage(record) } : {}),
  };
}

/** The contract a deploy created, the Wasm code id, and its txs in order. */
interface Deployed {
  contractAddress: string;
  codeId?: bigint;
  txs: TxResult[];
}

type DeploySteps = (ctx: ActionContext, input: DeployInput, sender: string) => Promise<Deployed>;

const sendWith = (ctx: ActionContext) => (op: Parameters<typeof sendOp>[1]) =>
  sendOp(ctx.backend, op, { ...ctx.send, logger: ctx.logger });

const deployEvmContract: DeploySteps = async (ctx, input) => {
  const r = await sendWith(ctx)({ kind: 'deployEvm', initStage: input.initStage });
  if (!r.contractAddress) throw new AppError('deploy_failed', `deploy tx ${r.hash} created no contract`);
  return { contractAddress: r.contractAddress, txs: [r] };
};

/** Publish, add the deployer, and set the init stage when the deployer is the publisher. */
const deployMoveModule: DeploySteps = async (ctx, input, sender) => {
  if (!input.moduleBytes)
    throw new InputError('missing_module', '--module PATH (compiled vip_score.mv) is required');
  const send = sendWith(ctx);
  const txs = [await send({ kind: 'publishMove', modules: [input.moduleBytes] })];
  const deployer = ctx.backend.normaliseAddress(input.deployer ?? sender);
  txs.push(await send({ kind: 'addDeployer', addr: deployer }));
  if (deployer === sender) txs.push(await send({ kind: 'setInitStage', stage: input.initStage }));
  else ctx.logger.warn({ deployer }, 'the deployer must now call set-init-stage itself');
  return { contractAddress: sender, txs };
};

/** Store the code, then instantiate it with the allow list (default: the sender). */
const deployWasmContract: DeploySteps = async (ctx, input, sender) => {
  if (!input.wasmBytes) throw new InputError('missing_wasm', '--wasm PATH is required');
  const send = sendWith(ctx);
  const stored = await send({ kind: 'storeWasm', wasm: input.wasmBytes });
  if (stored.codeId === undefined)
    throw new AppError('deploy_failed', `store tx ${stored.hash} gave no code_id`);
  const allowList = (input.allowList ?? [sender]).map((a) => ctx.backend.normaliseAddress(a));
  const inst = await send({
    kind: 'instantiateWasm',
    codeId: stored.codeId,
    initStage: input.initStage,
    allowList,
    label: input.label ?? 'vip_score',
    admin: input.admin ?? sender,
  });
  if (!inst.contractAddress)
    throw new AppError('deploy_failed', `instantiate tx ${inst.hash} gave no contract address`);
  return { contractAddress: inst.contractAddress, codeId: stored.codeId, txs: [stored, inst] };
};

async function checkDeployed(input: DeployInput, contract: string): Promise<void> {
  const bound = input.bind(contract);
  const init = await bound.initStage();
  const stage = await bound.stageInfo(input.initStage);
  const moveWaitsForDeployer = input.vm === 'move' && init === undefined;
  if (!moveWaitsForDeployer && (init !== input.initStage || !stage || stage.isFinalized)) {
    throw new AppError(
      'deploy_check_failed',
      `deployed contract reports init stage ${init}, stage info ${JSON.stringify(stage ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
    );
  }
}

async function deployDryRun(ctx: ActionContext, input: DeployInput, sender: string) {
  const first =
    input.vm === 'evm'
      ? await ctx.backend.plan({ kind: 'deployEvm', initStage: input.initStage })
      : input.vm === 'move'
        ? await ctx.backend.plan({ kind: 'publishMove', modules: [input.moduleBytes ?? new Uint8Array()] })
        : await ctx.backend.plan({ kind: 'storeWasm', wasm: input.wasmBytes ?? new Uint8Array() });
  const later =
    input.vm === 'move'
      ? ['add_deployer_script', 'set_init_stage']
      : input.vm === 'wasm'
        ? ['instantiate']
        : [];
  return {
    dryRun: true,
    sender,
    gasLimit: String(first.gasLimit),
    fee: first.fee,
    messages: first.messages,
    thenSends: later,
  };
}

/**
 * The L1 governance call a mainnet whitelist proposal carries (docs/vip-contracts.md §2.4). Operator-owned
 * values the tool cannot know are left as named placeholders.
 */
export function proposalMessage(record: DeployRecord): Record<string, unknown> {
  const vmType = { move: 0, wasm: 1, evm: 2 }[record.vm];
  return {
    '@type': '/initia.move.v1.MsgGovExecute',
    authority: 'init10d07y265gmmuvt4z0w9aw880jnsr700j55nka3',
    sender: 'init10d07y265gmmuvt4z0w9aw880jnsr700j55nka3',
    module_address: '0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789',
    module_name: 'vip',
    function_name: 'register',
    type_args: [],
    args_json: {
      operator: '<OPERATOR_ADDRESS>',
      bridge_id: '<BRIDGE_ID>',
      bridge_address: '<BRIDGE_ADDRESS>',
      vip_l2_score_contract: record.contractAddress,
      operator_commission_max_rate: '<RATE>',
      operator_commission_max_change_rate: '<RATE>',
      operator_commission_rate: '<RATE>',
      vm_type: vmType,
    },
    note: 'wrap in MsgSubmitProposal (deposit e.g. 100000000uinit); the forum post asks for the scoring contract address above',
  };
}
