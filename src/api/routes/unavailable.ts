import type { FastifyInstance } from 'fastify';
import { GrpcCode, HttpError } from '../errors.js';
import type { ApiOptions } from '../options.js';

interface UnavailableFamily {
  /** Path prefix; both the prefix itself and everything under it answer. */
  prefix: string;
  status: number;
  message: string;
  /**
   * The family's own routes are registered (answering this error), so the OpenAPI document lists
   * them; only the other paths under the prefix are answered here.
   */
  routesListed?: boolean;
}

export const EVM_UNAVAILABLE = 'evm routes are not available on this chain';

/** The code-12 error a route answers where this chain or configuration does not serve it. */
export function routeUnavailable(status: number, message: string): HttpError {
  return new HttpError(status, GrpcCode.unimplemented, message, 'route_unavailable');
}

/**
 * Route families this process does not serve, answered with a clear JSON code-12 error
 * (decisions 1 and 4). A family leaves this list when its issue lands and registers real routes.
 */
export function unavailableFamilies(options: ApiOptions): UnavailableFamily[] {
  const evm = options.vmType === 'evm';
  const families: UnavailableFamily[] = [
    // On EVM without INTERNAL_TX the reference answers the same text ("evm" even on an EVM chain),
    // and still lists the routes in its document (docs/api.md §4.8).
    ...(options.internalTx
      ? []
      : [
          {
            prefix: '/indexer/tx/v1/evm-internal-txs',
            status: 404,
            message: EVM_UNAVAILABLE,
            routesListed: evm,
          },
        ]),
  ];
  if (!evm) families.push({ prefix: '/indexer/tx/v1/evm-txs', status: 404, message: EVM_UNAVAILABLE });
  return families;
}

export function registerUnavailableRoutes(app: FastifyInstance, options: ApiOptions): void {
  for (const family of unavailableFamilies(options)) {
    const handler = async () => {
      throw routeUnavailable(family.status, family.message);
    };
    const urls = family.routesListed ? [`${family.prefix}/*`] : [family.prefix, `${family.prefix}/*`];
    for (const url of urls) {
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
