import { checkInternalTx } from '../../shared/config.js';
import { createBankState } from '../../node/bank-state.js';
import type { CometClient } from '../../node/cometbft.js';
import type { EvmClient } from '../../node/evm.js';
import type { RestClient } from '../../node/rest.js';
import { INGEST_RETRY, type RetryPolicy } from '../../node/retry.js';
import type { NodeWaits } from '../../shared/node-waits.js';
import type { ChainMeta } from '../../store/readers/chain-meta.js';
import type { RawBlock } from '../../node/types.js';
import type { Db } from '../../store/driver/db.js';
import type { AssetDelta } from '../collect/rich-list-bank.js';
import { createKeptBlocks } from './kept-blocks.js';
import { createInternalTxDerivation } from './internal-txs.js';
import { createBankBalanceSource, createEvmBalanceSource, type BalanceSource } from './rich-list-sources.js';
import { createRichListDerivation } from './rich-list.js';
import { runDerivation, type DerivationRunnerDeps, type DerivationRunOptions } from './runner.js';

/** A stage ready to run; the work type stays inside the closure. */
export interface RunnableDerivation {
  name: string;
  run(deps: DerivationRunnerDeps, options: DerivationRunOptions): Promise<void>;
  /** Told of the blocks the block stream fetches (so the stage need not fetch them again). */
  onBlocks?(blocks: readonly (RawBlock | undefined)[]): void;
  /** Told of the balance changes a prepare worker took from the blocks it fetched (as onBlocks). */
  onBalanceChanges?(taken: readonly { height: number; items: AssetDelta[] }[]): void;
}

/**
 * Balance changes kept for the rich-list stage at most (a few per tx, summed per block; ~200 bytes
 * each): some thousands of blocks ahead of the stage. Past it the stage reads blocks from the node.
 */
const KEPT_BALANCE_CHANGES = 200_000;

/** Attempts of one balance read before the stage's fetch fails and is retried whole. */
const SOURCE_READ_ATTEMPTS = 10;

/** The stages this chain and configuration enable (docs/ingest.md §8.1), in a fixed order. */
export function createDerivations(ctx: {
  chain: ChainMeta;
  options: { internalTx: boolean | undefined; richList: boolean };
  db: Db;
  comet: CometClient;
  rest: RestClient;
  evm: EvmClient | undefined;
  accountPrefix: string;
  /** Stops node retries at shutdown. */
  signal?: AbortSignal | undefined;
  /** Backoff towards the node (default INGEST_RETRY; tests shrink it). */
  retry?: RetryPolicy | undefined;
  /** Where a stage waiting for the node says so (`/status`'s `waiting`). */
  waits?: NodeWaits | undefined;
}): RunnableDerivation[] {
  const stages: RunnableDerivation[] = [];
  if (ctx.options.internalTx === true) checkInternalTx(ctx.chain.vmType);
  if (ctx.evm && ctx.options.internalTx !== false) {
    const stage = createInternalTxDerivation({
      db: ctx.db,
      evm: ctx.evm,
      accountPrefix: ctx.accountPrefix,
      retry: ctx.retry,
      waits: ctx.waits,
    });
    stages.push({ name: stage.name, run: (deps, options) => runDerivation(stage, deps, options) });
  }
  const source = ctx.options.richList ? createBalanceSource(ctx) : undefined;
  if (source) {
    const kept = createKeptBlocks((block) => source.extract(block), KEPT_BALANCE_CHANGES);
    const stage = createRichListDerivation({ db: ctx.db, comet: ctx.comet, source, kept });
    stages.push({
      name: stage.name,
      run: (deps, options) => runDerivation(stage, deps, options),
      onBlocks: (blocks) => kept.record(blocks),
      onBalanceChanges: (taken) => kept.recordTaken(taken),
    });
  }
  return stages;
}

/**
 * The rich-list stage's node reads (balances, snapshot, supply) for this chain's VM; `verify` reads
 * the node's balances through it too (docs/ingest.md §11.1). Undefined on EVM without JSON-RPC.
 */
export function createBalanceSource(
  ctx: Pick<
    Parameters<typeof createDerivations>[0],
    'chain' | 'comet' | 'rest' | 'evm' | 'accountPrefix' | 'signal' | 'retry'
  >,
): BalanceSource | undefined {
  // A read that keeps failing fails the stage's fetch, which the runner retries without a budget.
  const policy = { ...(ctx.retry ?? INGEST_RETRY), maxAttempts: SOURCE_READ_ATTEMPTS };
  const retry = ctx.signal ? { signal: ctx.signal, policy } : { policy };
  // Balances by batched abci_query over the RPC surface: one request per batch of accounts.
  const bank = createBankState(ctx.rest, { ...retry, comet: ctx.comet });
  if (ctx.chain.vmType !== 'evm')
    return createBankBalanceSource({ vm: ctx.chain.vmType, bank, prefix: ctx.accountPrefix });
  return ctx.evm && createEvmBalanceSource({ evm: ctx.evm, bank, prefix: ctx.accountPrefix, ...retry });
}
