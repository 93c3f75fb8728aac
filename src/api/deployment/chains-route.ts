import type { FastifyInstance } from 'fastify';
import type { ChainCondition } from '../../shared/chain-condition.js';
import { readCheckpointHeights } from '../../store/readers/chain-meta.js';
import type { ChainDirectory, DeployedChain } from './directory.js';

/** How long `/chains` waits for one chain's database before it lists the chain without its stages. */
const STAGE_READ_TIMEOUT_MS = 1000;

/** GET /chains (docs/chains.md §2.1): every configured chain, its heights and its state. */
export function registerChainsRoute(app: FastifyInstance, directory: ChainDirectory): void {
  app.get(
    '/chains',
    {
      schema: {
        tags: ['Chains'],
        summary: 'Every chain of this deployment: heights and state',
        response: { 200: { $ref: 'chains.ChainsResponse#' } },
      },
    },
    async (_request, reply) => {
      const chains = await Promise.all(directory.chains.map(describeChain));
      void reply.header('content-type', 'application/json');
      return JSON.stringify({ chains });
    },
  );
}

async function describeChain(chain: DeployedChain) {
  const c = chain.condition();
  const { blocks, ...stages } = (await checkpoints(chain)) ?? {};
  return {
    chain_id: c.chainId,
    vm: c.vm,
    state: c.state,
    // The database's checkpoint when it answers (an `api` process has no ingest of its own).
    indexed_height: blocks ?? c.height,
    node_height: c.nodeHeight,
    stages: blocks === undefined ? undefined : stages,
    last_error: servedError(c),
  };
}

/** The block stream's and the stages' checkpoints; undefined when the database does not answer in time. */
async function checkpoints(chain: DeployedChain): Promise<Record<string, number> | undefined> {
  const db = chain.db();
  if (!db) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), STAGE_READ_TIMEOUT_MS);
  });
  try {
    return await Promise.race([readCheckpointHeights(db).catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function servedError(c: ChainCondition) {
  return c.lastError ? { message: c.lastError.message, since: c.lastError.since.toISOString() } : undefined;
}

export const CHAINS_SCHEMAS = [
  {
    $id: 'chains.Chain',
    type: 'object',
    required: ['chain_id', 'state', 'indexed_height'],
    properties: {
      chain_id: { type: 'string' },
      vm: { type: 'string', enum: ['move', 'wasm', 'evm'] },
      state: { type: 'string', enum: ['starting', 'ok', 'catching_up', 'stalled'] },
      indexed_height: { type: 'integer' },
      node_height: { type: 'integer' },
      stages: { type: 'object', additionalProperties: { type: 'integer' } },
      last_error: {
        type: 'object',
        properties: { message: { type: 'string' }, since: { type: 'string', format: 'date-time' } },
      },
    },
  },
  {
    $id: 'chains.ChainsResponse',
    type: 'object',
    required: ['chains'],
    properties: { chains: { type: 'array', items: { $ref: 'chains.Chain#' } } },
  },
];
