import type { FastifyInstance } from 'fastify';
import { GrpcCode, HttpError } from '../errors.js';
import type { ApiOptions } from '../options.js';

interface UnavailableFamily {
  /** Path prefix; both the prefix itself and everything under it answer. */
  prefix: string;
  status: number;
  message: string;
}

/**
 * Route families this process does not serve, answered with a clear JSON code-12 error
 * (decisions 1 and 4). A family leaves this list when its issue lands and registers real routes.
 */
export function unavailableFamilies(options: ApiOptions): UnavailableFamily[] {
  const evm = options.vmType === 'evm';
  const notOnThisChain = 'evm routes are not available on this chain';
  const families: UnavailableFamily[] = [
    // On EVM without INTERNAL_TX the reference answers the same text ("evm" even on an EVM chain).
    ...(options.internalTx
      ? []
      : [{ prefix: '/indexer/tx/v1/evm-internal-txs', status: 404, message: notOnThisChain }]),
  ];
  if (!evm) families.push({ prefix: '/indexer/tx/v1/evm-txs', status: 404, message: notOnThisChain });
  return families;
}

export function registerUnavailableRoutes(app: FastifyInstance, options: ApiOptions): void {
  for (const family of unavailableFamilies(options)) {
    const handler = async () => {
      throw new HttpError(family.status, GrpcCode.unimplemented, family.message, 'route_unavailable');
    };
    for (const url of [family.prefix, `${family.prefix}/*`]) {
      app.route({
        method: app.supportedMethods,
        url,
        schema: { hide: true },
        exposeHeadRoute: false,
        handler,
      });
    }
  }
}
