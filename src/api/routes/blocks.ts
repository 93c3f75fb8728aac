import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../shared/errors.js';
import { buildPagination, parsePagination, planKeyset } from '../pagination.js';
import { parseHeight } from '../params.js';
import { renderBlock } from '../../wire/block.js';
import { renderList } from '../render.js';
import { HeightParams, PaginationQuery, errorResponses, ref } from '../schemas.js';
import { jsonRoute, type RouteDeps } from './define.js';

/** Block routes (docs/api.md §4.2). */
export function registerBlockRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { blocks } = deps.readers;
  const chainId = deps.options.chainId;

  jsonRoute(app, deps, {
    url: '/indexer/block/v1/avg_blocktime',
    ttlSeconds: 10,
    schema: {
      tags: ['Block'],
      summary: 'Average block time of the newest 100 blocks (seconds)',
      response: { 200: ref('block.AvgBlockTimeResponse'), ...errorResponses },
    },
    async handler() {
      return JSON.stringify({ avg_block_time: await blocks.averageBlockTime() });
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/block/v1/blocks',
    ttlSeconds: 1,
    schema: {
      tags: ['Block'],
      summary: 'Blocks, newest first by default',
      querystring: PaginationQuery,
      response: { 200: ref('block.BlocksResponse'), ...errorResponses },
    },
    async handler({ query }) {
      const page = parsePagination(query, 'height');
      const result = await blocks.list(planKeyset(page, 'height'));
      const pagination = buildPagination(page, {
        column: 'height',
        lastValue: result.rows.at(-1)?.height,
        hasMore: result.hasMore,
        total: result.total,
      });
      return renderList(
        'blocks',
        result.rows.map((row) => renderBlock(row, chainId)),
        pagination,
      );
    },
  });

  jsonRoute(app, deps, {
    url: '/indexer/block/v1/blocks/:height',
    ttlSeconds: 10,
    schema: {
      tags: ['Block'],
      summary: 'One block by height',
      params: HeightParams,
      response: { 200: ref('block.BlockResponse'), ...errorResponses },
    },
    async handler({ params }) {
      const row = await blocks.byHeight(parseHeight(params.height));
      if (!row) throw new NotFoundError('block_not_found', '[NOT_FOUND] block not found');
      return `{"block":${renderBlock(row, chainId)}}`;
    },
  });
}
