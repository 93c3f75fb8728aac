import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { AppError } from '../../src/shared/errors.js';
import { createNodeWaits } from '../../src/shared/node-waits.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, type Harness } from './harness.js';

/** A Db that fails like an unreachable server while `down` is set. */
function flakyDb(inner: Db) {
  const state = { down: false };
  const guard = () => {
    if (state.down) throw new AppError('db_unavailable', 'database unavailable', { retryable: true });
  };
  const db: Db = {
    kind: inner.kind,
    async query(sql, params) {
      guard();
      return inner.query(sql, params);
    },
    async exec(sql) {
      guard();
      return inner.exec(sql);
    },
    async transaction(fn) {
      guard();
      return inner.transaction(fn);
    },
    close: () => inner.close(),
  };
  return { db, state };
}

/** Minimal OpenAPI 3.0 structure check (no meta-schema package is installed). */
const OPENAPI_STRUCTURE = {
  type: 'object',
  required: ['openapi', 'info', 'paths', 'components'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.0\\.\\d+$' },
    info: { type: 'object', required: ['title', 'version'] },
    paths: {
      type: 'object',
      propertyNames: { pattern: '^/' },
      additionalProperties: {
        type: 'object',
        properties: {
          get: {
            type: 'object',
            required: ['responses'],
            properties: {
              parameters: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['name', 'in', 'schema'],
                  properties: { in: { enum: ['query', 'path'] } },
                },
              },
              responses: { type: 'object', required: ['200'] },
            },
          },
        },
      },
    },
    components: {
      type: 'object',
      properties: { schemas: { type: 'object', propertyNames: { pattern: '^[a-zA-Z0-9._-]+$' } } },
    },
  },
};

describe.each(testDbFactories())('API document, health and outages on $name', (factory) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(factory, { vm: 'evm', blocks: 10 });
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('serves a valid OpenAPI 3 document with the reference schema names', async () => {
    const res = await h.get('/swagger/doc.json');
    expect(res.status).toBe(200);
    const doc = res.json as {
      components: { schemas: Record<string, unknown> };
      paths: Record<string, unknown>;
    };
    const ajv = new Ajv({ strict: false });
    expect(ajv.validate(OPENAPI_STRUCTURE, doc), ajv.errorsText()).toBe(true);
    for (const name of [
      'status.StatusResponse',
      'block.BlocksResponse',
      'tx.TxsResponse',
      'tx.EvmTx',
      'common.PaginationResponse',
    ]) {
      expect(doc.components.schemas[name]).toBeDefined();
    }
    // Every component schema compiles (refs resolve inside the document).
    const strict = new Ajv({ strict: false });
    strict.addSchema(doc, 'doc');
    for (const name of Object.keys(doc.components.schemas)) {
      expect(strict.getSchema(`doc#/components/schemas/${name}`)).toBeDefined();
    }
    expect(Object.keys(doc.paths)).toContain('/indexer/tx/v1/evm-txs/{tx_hash}');
    for (const name of ['richlist.TokenHoldersResponse', 'tx.EvmInternalTx', 'tx.EvmInternalTxsResponse']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    const internalPaths = (paths: object) =>
      Object.keys(paths).filter((p) => p.includes('/evm-internal-txs'));
    const INTERNAL_PATHS = [
      '/indexer/tx/v1/evm-internal-txs',
      '/indexer/tx/v1/evm-internal-txs/by_account/{account}',
      '/indexer/tx/v1/evm-internal-txs/by_height/{height}',
      '/indexer/tx/v1/evm-internal-txs/{tx_hash}',
    ];
    expect(internalPaths(doc.paths).sort()).toEqual(INTERNAL_PATHS);
    // An EVM chain with INTERNAL_TX=false still lists them (docs/api.md §4.8), and answers code 12.
    const off = await h.appWith({ INTERNAL_TX: 'false' });
    const offDoc = JSON.parse((await off.inject({ url: '/swagger/doc.json' })).body) as {
      paths: object;
      components: { schemas: Record<string, unknown> };
    };
    expect(internalPaths(offDoc.paths).sort()).toEqual(INTERNAL_PATHS);
    expect(offDoc.components.schemas['tx.EvmInternalTxsResponse']).toBeDefined();
    // A bad parameter changes nothing: the routes are not served, as on Move and Wasm.
    for (const url of [
      '/indexer/tx/v1/evm-internal-txs',
      '/indexer/tx/v1/evm-internal-txs/by_height/2',
      '/indexer/tx/v1/evm-internal-txs?pagination.key=!!&pagination.limit=0',
      '/indexer/tx/v1/evm-internal-txs/by_account/zz?pagination.offset=-1',
      '/indexer/tx/v1/evm-internal-txs/by_height/abc',
      '/indexer/tx/v1/evm-internal-txs/zz?pagination.key=!!',
      '/indexer/tx/v1/evm-internal-txs/by_height/abc?pagination.limit=1&pagination.limit=2',
    ]) {
      const res = await off.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(JSON.parse(res.body), url).toEqual({
        code: 12,
        message: 'evm routes are not available on this chain',
        details: [],
      });
    }
    const move = await h.appWith({ VM_TYPE: 'move' });
    const moveDoc = JSON.parse((await move.inject({ url: '/swagger/doc.json' })).body) as {
      paths: object;
      info: { title: string; description: string };
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(moveDoc.paths).filter((p) => p.includes('/evm-'))).toEqual([]);
    // A Move chain's document lists no EVM schema, and names this project.
    expect(Object.keys(moveDoc.components.schemas).filter((n) => n.includes('Evm'))).toEqual([]);
    expect(moveDoc.info.title).toBe('rollup-indexer API');
    expect(moveDoc.info.description).toContain('rollytics');
  });

  it('serves the interactive reference offline', async () => {
    const redirect = await h.app.inject({ url: '/swagger' });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('/swagger/index.html');
    const index = await h.app.inject({ url: '/swagger/index.html' });
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain('swagger-ui-bundle.js');
    expect(index.body).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-ui-standalone-preset.js']) {
      const res = await h.app.inject({ url: `/swagger/${asset}` });
      expect(res.statusCode).toBe(200);
      expect(res.body.length).toBeGreaterThan(1000);
    }
    expect((await h.app.inject({ url: '/swagger/nope.js' })).statusCode).toBe(404);
  });

  it('answers /health, /ready and /metrics', async () => {
    expect((await h.get('/health')).json).toEqual({ status: 'ok' });
    expect((await h.get('/ready')).json).toEqual({ status: 'ready' });
    await h.get('/status');
    const metrics = await h.app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain(
      'rollup_indexer_http_requests_total{method="GET",route="/status",status_class="2xx"}',
    );
    // The seeded checkpoint is fresh, so a generous lag passes and a missing one fails.
    const strict = await h.appWith({ READY_MAX_LAG_SECONDS: '3600' });
    expect((await strict.inject({ url: '/ready' })).statusCode).toBe(200);
    await h.db.query("UPDATE checkpoint SET updated_at = now() - interval '2 hours'");
    const stalled = await strict.inject({ url: '/ready' });
    expect(stalled.statusCode).toBe(503);
    expect(JSON.parse(stalled.body)).toEqual({ code: 14, message: 'indexer is stalled', details: [] });
    await h.db.query('UPDATE checkpoint SET updated_at = now()');
  });

  it('says what waits for the node in /status, /health and /ready, and nothing once it answers (docs/api.md §4.1.1)', async () => {
    const waits = createNodeWaits();
    const app = await createApiApp({
      options: loadApiOptions({
        CHAIN_ID: 'evm-1',
        VM_TYPE: 'evm',
        API_CACHE: 'false',
        READY_MAX_LAG_SECONDS: '3600',
      }),
      db: h.db,
      logger: silentLogger(),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
      nodeWaits: waits,
    });
    try {
      const calm = await Promise.all(['/status', '/health', '/ready'].map((url) => app.inject({ url })));
      const calmBodies = calm.map((res) => res.body);
      expect(calmBodies.every((body) => !body.includes('waiting'))).toBe(true);
      const chunk = waits.entry('block stream', 'heights 11-30');
      const refused = new AppError('node_unreachable', 'rpc http://node: connect ECONNREFUSED', {
        retryable: true,
        details: { surface: 'rpc' },
      });
      chunk.failed(refused);
      chunk.failed(refused);
      const expected = [
        {
          on: 'rpc',
          what: 'block stream: heights 11-30',
          since: waits.list()[0]!.since.toISOString(),
          attempts: 2,
          last_error: 'rpc http://node: connect ECONNREFUSED',
        },
      ];
      const status = JSON.parse((await app.inject({ url: '/status' })).body) as Record<string, unknown>;
      expect(Object.keys(status).at(-1)).toBe('waiting');
      expect(status.waiting).toEqual(expected);
      expect(JSON.parse((await app.inject({ url: '/health' })).body)).toEqual({
        status: 'ok',
        waiting: expected,
      });
      expect(JSON.parse((await app.inject({ url: '/ready' })).body)).toEqual({
        status: 'ready',
        waiting: expected,
      });
      // A stalled /ready names the wait.
      await h.db.query("UPDATE checkpoint SET updated_at = now() - interval '2 hours'");
      const stalled = await app.inject({ url: '/ready' });
      await h.db.query('UPDATE checkpoint SET updated_at = now()');
      expect(stalled.statusCode).toBe(503);
      expect(JSON.parse(stalled.body).message).toBe(
        `indexer is stalled: waiting for rpc since ${expected[0]!.since} (block stream: heights 11-30)`,
      );
      chunk.done();
      const after = await Promise.all(['/status', '/health', '/ready'].map((url) => app.inject({ url })));
      expect(after.map((res) => res.body)).toEqual(calmBodies);
    } finally {
      await app.close();
    }
  });

  it('answers 503 while the database is down and recovers by itself', async () => {
    const { db, state } = flakyDb(h.db);
    const app = await createApiApp({
      options: loadApiOptions({ CHAIN_ID: 'evm-1', VM_TYPE: 'evm', API_CACHE: 'false' }),
      db,
      logger: silentLogger(),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
    });
    try {
      state.down = true;
      for (const url of ['/status', '/indexer/tx/v1/txs', '/ready', '/indexer/block/v1/blocks/1']) {
        const res = await app.inject({ url });
        expect(res.statusCode).toBe(503);
        expect(JSON.parse(res.body)).toEqual({ code: 14, message: 'Service Unavailable', details: [] });
      }
      state.down = false;
      expect((await app.inject({ url: '/status' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  // Last: it empties and breaks the shared database.
  it('answers 503 on /status before any block is indexed, and never leaks internals on 500', async () => {
    await h.db.query('DELETE FROM block');
    const res = await h.app.inject({ url: '/status' });
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).code).toBe(14);
    expect((await h.get('/indexer/block/v1/avg_blocktime')).json).toEqual({ avg_block_time: 0 });
    await h.db.query('DROP TABLE tx');
    const broken = await h.app.inject({ url: '/indexer/tx/v1/txs' });
    expect(broken.statusCode).toBe(500);
    expect(JSON.parse(broken.body)).toEqual({ code: 13, message: 'Internal Server Error', details: [] });
  });
});
