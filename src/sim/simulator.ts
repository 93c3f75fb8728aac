import type { Server } from 'node:http';
import { toBech32 } from '../shared/address.js';
import { AppError, InputError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import { createChain, deriveValidator, type Chain, type GeneratedBlock } from './chain/blocks.js';
import { closeServer, createRawServer, listen } from './surfaces/http.js';
import { createKeyring, moduleAddress, sha256 } from './chain/keys.js';
import type { ModelContext } from './vm/common/context.js';
import { createMoveVm } from './vm/move/setup.js';
import { type VmDeps } from './vm/setup.js';
import { createWasmVm } from './vm/wasm/setup.js';
import { createEvmVm } from './vm/evm/setup.js';
import { loadReplay, type Replay } from './replay/load.js';
import {
  createRecordedContractRest,
  createRecordedErc721Rest,
  createRecordedResourceRest,
} from './replay/state.js';
import { createEvmContracts, type EvmContracts } from './vm/evm/contracts.js';
import { nftCollectionsTruth, nftMovesTruth, nftTokensTruth } from './truth/nft.js';
import { type StateContext } from './surfaces/rest/state.js';
import type { ClientRpcContext } from './surfaces/rpc/client-context.js';
import { type RestAnswer, type RestContext } from './surfaces/rest/blocks.js';
import type { GeneratedTx } from './chain/assemble.js';
import type {
  SimExtension,
  SimHttpRequest,
  Simulator,
  SimulatorOptions,
  SimulatorTruth,
  SimulatorUrls,
} from './types.js';
import { haltableHead, servedBase, simulatorHead } from './node-heights.js';
import { UPGRADE_MSG_TYPE, withUpgrade } from './chain/upgrade.js';
import { resolveOptions, type Resolved } from './resolve-options.js';
import { createSchedule, parseTxsPerBlock, recentHeights, type Schedule } from './chain/workload.js';
import { createFaultInjector, parseFaults, type Surface } from './surfaces/faults.js';
import {
  createCometHandler,
  createEvmHandler,
  createRestHandler,
  faultWrapped,
  type Handler,
} from './surfaces/handlers.js';
import type { VmSetup } from './vm/setup.js';

const PREFIX = 'init';
const NODE_VERSION = 'v1.1.4';

const OTHER_DENOMS = ['uusdc', 'ueth'];
/** The operator account the fee collector pays the block's fees to at EndBlock. */
const rewardsAddress = (seed: number): Uint8Array => sha256(`rollup-sim/operator/${seed}`).subarray(0, 20);
const FEE_COLLECTOR = moduleAddress('fee_collector');

function modelContext(r: Resolved, evm: EvmContracts | undefined): ModelContext {
  return {
    seed: r.seed,
    prefix: PREFIX,
    accounts: createKeyring(r.keyringSeed, r.accounts, PREFIX),
    ...(r.nftShare ? { nftShare: r.nftShare } : {}),
    feeDenom: evm ? evm.feeDenom : 'umin',
    denoms: OTHER_DENOMS,
    feeCollector: FEE_COLLECTOR,
  };
}

function createVm(
  r: Resolved,
  deps: VmDeps,
  evm: EvmContracts | undefined,
  chain: () => Chain,
  lowest: { base: () => number; refused: () => void },
): VmSetup {
  if (r.vm === 'move') return createMoveVm(deps);
  if (r.vm === 'wasm') return createWasmVm(deps);
  return createEvmVm({
    ...deps,
    chainId: r.chainId,
    contracts: evm!,
    fastSignatures: r.fastSignatures,
    feeCollectorHex: '0x' + Buffer.from(FEE_COLLECTOR).toString('hex'),
    chain,
    ...lowest,
  });
}

function createStateContext(
  r: Resolved,
  modelCtx: ModelContext,
  schedule: Schedule,
  heights: { head: () => number; base: () => number },
  vmRef: { current?: VmSetup },
): StateContext {
  return {
    seed: r.seed,
    prefix: PREFIX,
    accounts: modelCtx.accounts,
    schedule,
    ...heights,
    denoms: [modelCtx.feeDenom, ...modelCtx.denoms],
    validator: { addressHex: deriveValidator(r.seed).address, pubKeyB64: deriveValidator(r.seed).pubKeyB64 },
    balanceOf: (address, denom, h) => vmRef.current?.balanceOf?.(address, denom, h),
    denomsOf: (address, h) => vmRef.current?.denomsOf?.(address, h) ?? [],
    accountsAt: (h) => vmRef.current?.accountsAt?.(h) ?? [],
    supplyAt: (h) => vmRef.current?.supplyAt?.(h),
  };
}

type TxFinder = (hash: string) => { block: GeneratedBlock; tx: GeneratedTx } | undefined;

/** A tx by hash: through the index of generated blocks, else among the most recent blocks. */
function createTxFinder(chain: Chain, txIndex: Map<string, number>, recent: () => number[]): TxFinder {
  return (hash) => {
    const known = txIndex.get(hash);
    const search = known !== undefined ? [known] : [];
    // Unseen hashes: look through the most recent blocks (sha256 cannot be inverted).
    if (known === undefined) search.push(...recent());
    for (const h of search) {
      const block = chain.block(h);
      const tx = block.txs.find((t) => t.hash === hash);
      if (tx) return { block, tx };
    }
    return undefined;
  };
}

/** What the surfaces share about the chain: its blocks, clock, faults and tx look-up. */
interface SurfaceParts {
  r: Resolved;
  chain: Chain;
  head: () => number;
  base: () => number;
  findTx: TxFinder;
  faults: ReturnType<typeof createFaultInjector>;
}

function createRpcContext(
  parts: SurfaceParts,
  more: {
    accounts: ModelContext['accounts'];
    firstTx: ((h: number) => number) | undefined;
    rest: ClientRpcContext['rest'];
    urls: () => SimulatorUrls | undefined;
  },
): ClientRpcContext {
  const { r, chain, head, base, findTx, faults } = parts;
  return {
    chain,
    seed: r.seed,
    prefix: PREFIX,
    accounts: more.accounts,
    findTx,
    // Recorded txs do not follow the schedule: searches then generate the heights they scan.
    ...(more.firstTx ? { firstTx: more.firstTx } : {}),
    rest: more.rest,
    chainId: r.chainId,
    head,
    base,
    resultsMissing: (h, at) => faults.resultsMissing(h, at),
    nodeVersion: NODE_VERSION,
    appName: `mini${r.vm}`,
    rpcListenAddr: () => {
      const urls = more.urls();
      return urls ? urls.rpc.replace('http://', 'tcp://') : 'tcp://127.0.0.1:26657';
    },
    nodeId: sha256(`rollup-sim/node/${r.seed}`).subarray(0, 20).toString('hex'),
  };
}

function createRestContext(parts: SurfaceParts): RestContext {
  const { r, chain, head, base, findTx, faults } = parts;
  return {
    chain,
    chainId: r.chainId,
    prefix: PREFIX,
    head,
    base,
    nodeVersion: NODE_VERSION,
    appName: `mini${r.vm}`,
    findTx,
    shortPage: () => faults.shortPage(),
    // The node's codec lacks the upgrade's type: it cannot render a tx carrying it.
    unresolvableType: (tx) =>
      r.upgrade && tx.truth.msgTypes.includes(UPGRADE_MSG_TYPE.slice(1)) ? UPGRADE_MSG_TYPE : undefined,
  };
}

function createTruth(
  parts: { chain: Chain; vm: VmSetup; modelCtx: ModelContext; schedule: Schedule; head: () => number },
  replay: Replay | undefined,
): SimulatorTruth {
  const { chain, vm, modelCtx, schedule, head } = parts;
  const lastTxAt = (h: number): number => schedule.firstTx(h + 1) - 1;
  const checkHeight = (h: number): number => {
    if (!Number.isSafeInteger(h) || h < 1 || h > head()) {
      throw new InputError('invalid_height', `height ${h} is outside 1..${head()}`);
    }
    return h;
  };
  return {
    block: (h) => chain.block(checkHeight(h)).truth,
    denoms: () => [modelCtx.feeDenom, ...modelCtx.denoms],
    nftCollections: (h) => nftCollectionsTruth(vm.naming, lastTxAt(checkHeight(h))),
    nftTokens: (h) => nftTokensTruth(vm.naming, lastTxAt(checkHeight(h))),
    nftMoves: (h) =>
      replay ? [] : nftMovesTruth(vm.naming, checkHeight(h), schedule.firstTx(h), lastTxAt(h)),
    holders: (denom, h) => (vm.holders ? vm.holders(denom, checkHeight(h)) : notYet('holders')),
    internalTxs: (hash) => (vm.internalTxs ? vm.internalTxs(hash) : notYet('internalTxs (EVM only)')),
  };
}

/** The three listening surfaces (JSON-RPC on EVM only); a port in use releases the others. */
function createSurfaceServers(
  r: Resolved,
  options: SimulatorOptions,
  handlers: { rpc: Handler; rest: Handler; evm: Handler },
  onError: (err: unknown) => void,
) {
  const servers: Server[] = [];
  let urls: SimulatorUrls | undefined;
  const open = async (handler: Handler, port: number): Promise<string> => {
    const server = createRawServer(handler, onError);
    servers.push(server);
    return listen(server, r.host, port);
  };
  return {
    urls: () => urls,
    async listen(): Promise<SimulatorUrls> {
      if (urls) return urls;
      try {
        const rpc = await open(handlers.rpc, options.rpcPort ?? 26657);
        const rest = await open(handlers.rest, options.restPort ?? 1317);
        const jsonRpc = r.vm === 'evm' ? await open(handlers.evm, options.jsonRpcPort ?? 8545) : undefined;
        urls = jsonRpc === undefined ? { rpc, rest } : { rpc, rest, jsonRpc };
        return urls;
      } catch (err) {
        // One port in use: release the others so the process can exit.
        await Promise.all(servers.map(closeServer));
        servers.length = 0;
        throw err;
      }
    },
    async close(): Promise<void> {
      await Promise.all(servers.map(closeServer));
      servers.length = 0;
      urls = undefined;
    },
  };
}

/** The generated chain; every block it generates is indexed by tx hash and shown to the VM. */
function createSimChain(
  r: Resolved,
  parts: { schedule: Schedule; vm: VmSetup; replay: Replay | undefined; txIndex: Map<string, number> },
): Chain {
  const { schedule, vm, replay, txIndex } = parts;
  return createChain({
    chainId: r.chainId,
    seed: r.seed,
    prefix: PREFIX,
    blockTimeMs: r.blockTimeMs,
    fastSignatures: r.fastSignatures,
    schedule,
    model: r.upgrade ? withUpgrade(vm.model, schedule.firstTx(r.upgrade.height), r.upgrade.every) : vm.model,
    feeCollectorBech32: toBech32(FEE_COLLECTOR, PREFIX),
    rewardsBech32: toBech32(rewardsAddress(r.seed), PREFIX),
    ...(replay ? { txsAt: (h: number) => replay.txsAt(h) } : {}),
    onGenerate(b) {
      if (txIndex.size > 500_000) txIndex.clear();
      for (const t of b.txs) txIndex.set(t.hash, b.height);
      vm.onBlock?.(b);
    },
  });
}

export function createSimulator(options: SimulatorOptions): Simulator {
  const r = resolveOptions(options);
  const logger = options.logger ?? createLogger({ level: 'warn', format: 'json', name: 'sim' });
  const schedule = createSchedule(r.seed, parseTxsPerBlock(options.txsPerBlock ?? '0-6'));
  const txIndex = new Map<string, number>();
  const evmContracts = r.vm === 'evm' ? createEvmContracts(r.seed, OTHER_DENOMS) : undefined;
  const modelCtx = modelContext(r, evmContracts);
  const lastTxAt = (h: number): number => schedule.firstTx(h + 1) - 1;
  const replay = options.replay !== undefined ? loadReplay(options.replay, PREFIX, logger) : undefined;
  const chainHead = simulatorHead(options, r.blockTimeMs, replay);
  // The node serves up to `head`; the truth knows the chain past a halt (tests compare with it).
  const { head, halt } = haltableHead(chainHead);
  const vmRef: { current?: VmSetup } = {};
  const faults = createFaultInjector(parseFaults(options.faults), r.seed);
  const base = servedBase(options, faults.spec.pruned, head);
  const stateCtx = createStateContext(r, modelCtx, schedule, { head, base }, vmRef);
  const recent = () => recentHeights(schedule, head(), base());
  const chainRef: { current?: Chain } = {};
  const vmDeps = {
    ctx: modelCtx,
    state: stateCtx,
    head,
    lastTxAt,
    recentHeights: recent,
    rewards: rewardsAddress(r.seed),
  };
  const lowest = { base, refused: () => faults.refusedBelowLowest() };
  const vm = createVm(r, vmDeps, evmContracts, () => chainRef.current!, lowest);
  vmRef.current = vm;
  const chain = createSimChain(r, { schedule, vm, replay, txIndex });
  chainRef.current = chain;
  const parts: SurfaceParts = {
    r,
    chain,
    head,
    base,
    findTx: createTxFinder(chain, txIndex, recent),
    faults,
  };
  const truth = createTruth({ chain, vm, modelCtx, schedule, head: chainHead }, replay);
  const extensions: SimExtension[] = options.extensions ?? [];
  const recordedRest = replay ? replayRest(replay, head) : undefined;
  const restVm: VmSetup = recordedRest ? { ...vm, rest: (req) => recordedRest(req) ?? vm.rest?.(req) } : vm;
  const restCtx = createRestContext(parts);
  const restHandler = createRestHandler({ truth, head, restCtx, stateCtx, vm: restVm, extensions });
  const rpcCtx = createRpcContext(parts, {
    accounts: modelCtx.accounts,
    firstTx: replay ? undefined : (h: number) => schedule.firstTx(h),
    rest: (req) => restHandler(req),
    urls: () => servers.urls(),
  });
  const withFaults = (surface: Surface, handler: Handler): Handler => faultWrapped(faults, surface, handler);
  const handlers = {
    rpc: withFaults('rpc', createCometHandler(rpcCtx, extensions)),
    rest: withFaults('rest', restHandler),
    evm: withFaults('jsonrpc', createEvmHandler(vm, extensions)),
  };
  const servers = createSurfaceServers(r, options, handlers, (err) =>
    logger.error({ err }, 'simulator request failed'),
  );
  return {
    options: { vm: r.vm, chainId: r.chainId, seed: r.seed },
    head,
    truth,
    faultLog: () => faults.log(),
    outage: (kind) => faults.setOutage(kind),
    halt,
    listen: () => servers.listen(),
    answer: (surface, req) => handlers[surface === 'jsonrpc' ? 'evm' : surface](req),
    close: () => servers.close(),
  };
}

/** State the recordings reveal answers first; the generated chain answers the rest. */
function replayRest(replay: Replay, head: () => number): (req: SimHttpRequest) => RestAnswer | undefined {
  const resources = createRecordedResourceRest(replay.resources);
  const contracts = createRecordedContractRest(replay.contracts, head);
  const erc721s = createRecordedErc721Rest(replay.erc721s, head);
  return (req) => resources(req) ?? contracts(req) ?? erc721s(req);
}

function notYet(what: string): never {
  throw new AppError('not_available', `simulator truth.${what} is not available on this VM`);
}
