import type { DatabaseTarget } from '../shared/config.js';
import { schemaNameOf } from '../shared/chains-file.js';
import { createSchemaViews, resolveChainSchema } from '../store/driver/chain-schema.js';
import { createPostgresDb, type Db, type PostgresOptions } from '../store/driver/db.js';
import { openDatabase } from './context.js';

/**
 * Opens each chain's storage in a deployment (docs/chains.md §3): on PostgreSQL a pool per chain
 * whose sessions see only the chain's schema; on PGlite, views of one embedded database, each
 * bound to its chain's schema.
 */
export interface ChainDatabases {
  /**
   * The chain's database, its schema created when missing (`create`: ingest, migrate) or only
   * named (the read-only API); `schema` is where its rows are.
   */
  open(
    chainId: string,
    target: DatabaseTarget,
    options?: Omit<PostgresOptions, 'url' | 'schema'> & { create?: boolean },
  ): Promise<{ db: Db; schema: string }>;
}

export function createChainDatabases(): ChainDatabases {
  // One embedded database per directory, shared by the chains in it; closed with its last view.
  const embedded = new Map<string, Promise<(schema: string) => Db>>();
  const viewsOf = (dataDir: string) => {
    let views = embedded.get(dataDir);
    if (!views) {
      views = openDatabase({ kind: 'pglite', dataDir }).then((db) =>
        createSchemaViews({
          ...db,
          close: async () => {
            embedded.delete(dataDir);
            await db.close();
          },
        }),
      );
      embedded.set(dataDir, views);
      views.catch(() => embedded.delete(dataDir));
    }
    return views;
  };
  return {
    async open(chainId, target, { create = true, ...pool } = {}) {
      const own = schemaNameOf(chainId);
      if (target.kind === 'pglite') {
        const views = await viewsOf(target.dataDir);
        // The schema is chosen through a view of public (the resolution names every table it reads).
        const probe = views('public');
        try {
          const schema = await resolveChainSchema(probe, chainId, own, create);
          return { db: views(schema), schema };
        } finally {
          await probe.close();
        }
      }
      const probe = createPostgresDb({ url: target.url, maxConnections: 1 });
      try {
        const schema = await resolveChainSchema(probe, chainId, own, create);
        return { db: createPostgresDb({ ...pool, url: target.url, schema }), schema };
      } finally {
        await probe.close();
      }
    },
  };
}
