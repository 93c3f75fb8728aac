import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createPostgresDb, type Db } from '../../src/store/driver/db.js';
import type { TestDbFactory } from '../helpers/db.js';
import { buildChain, seedDb, type SeedChain, type SeedVm } from './seed.js';

export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json: unknown;
}

export interface Harness {
  app: FastifyInstance;
  db: Db;
  chain: SeedChain;
  /** GET through the app; every 200 JSON answer is validated against the served OpenAPI document. */
  get(url: string, headers?: Record<string, string>): Promise<ApiAnswer>;
  /** Another app on the same database with extra env settings (closed by dispose). */
  appWith(env: Record<string, string>): Promise<FastifyInstance>;
  dispose(): Promise<void>;
}

/** A migrated database seeded with a deterministic chain, and the API app on top of it. */
export async function createHarness(
  factory: TestDbFactory,
  options: { vm: SeedVm; blocks: number; env?: Record<string, string>; seed?: boolean },
): Promise<Harness> {
  const { db, url, dispose } = await factory.create();
  const chain = buildChain({ vm: options.vm, blocks: options.blocks });
  if (options.seed !== false) await seedDb(db, chain);
  // On PostgreSQL the app reads through a session like `rollup-indexer api` opens: read-only,
  // statement timeout, prepared statements, stored JSON as bytes.
  const apiDb = url
    ? createPostgresDb({
        url,
        readOnly: true,
        statementTimeoutMs: 30_000,
        maxConnections: 4,
        preparedStatements: true,
        textAsBytes: true,
      })
    : db;
  const extraApps: FastifyInstance[] = [];
  const build = async (env: Record<string, string> = {}) => {
    const built = await createApiApp({
      options: loadApiOptions({ CHAIN_ID: chain.chainId, VM_TYPE: options.vm, API_CACHE: 'false', ...env }),
      db: apiDb,
      logger: silentLogger(),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
    });
    await built.ready();
    return built;
  };
  const app = await build(options.env);
  const validators = await openApiValidators(app);
  return {
    app,
    db,
    chain,
    async get(url, headers = {}) {
      const res = await app.inject({ method: 'GET', url, headers });
      const contentType = String(res.headers['content-type'] ?? '');
      const json: unknown = contentType.startsWith('application/json') ? JSON.parse(res.body) : undefined;
      if (res.statusCode === 200 && json !== undefined) validators.check(url, json);
      return { status: res.statusCode, headers: res.headers, body: res.body, json };
    },
    async appWith(env) {
      const extra = await build(env);
      extraApps.push(extra);
      return extra;
    },
    async dispose() {
      for (const extra of extraApps) await extra.close();
      await app.close();
      if (apiDb !== db) await apiDb.close();
      await dispose();
    },
  };
}

const validatorsByDocument = new Map<string, ReturnType<typeof openApiValidatorsOf>>();

/**
 * Compiles each path's 200 schema from the served document; matches request paths to templates.
 * Apps of one VM and options serve the same document: its validators are compiled once per worker.
 */
export async function openApiValidators(app: FastifyInstance) {
  const res = await app.inject({ url: '/swagger/doc.json' });
  let validators = validatorsByDocument.get(res.body);
  if (!validators) {
    validators = openApiValidatorsOf(JSON.parse(res.body) as OpenApiDocument);
    validatorsByDocument.set(res.body, validators);
  }
  return validators;
}

export type OpenApiDocument = {
  paths: Record<
    string,
    { get?: { responses?: Record<string, { content?: Record<string, { schema: unknown }> }> } }
  >;
};

/** The validators of a served document (an API reached over HTTP fetches it itself). */
export function openApiValidatorsOf(doc: OpenApiDocument) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'openapi.json');
  const routes: { re: RegExp; params: number; validate: ValidateFunction }[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const schema = item.get?.responses?.['200']?.content?.['application/json']?.schema;
    if (!schema) continue;
    const pointer = `openapi.json#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/get/responses/200/content/application~1json/schema`;
    const validate = ajv.getSchema(pointer);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i');
    routes.push({ re, params: (template.match(/\{/g) ?? []).length, validate });
  }
  routes.sort((a, b) => a.params - b.params); // static segments win, as in the router
  return {
    doc,
    check(url: string, json: unknown) {
      const path = url.split('?', 1)[0] ?? url;
      const route = routes.find((r) => r.re.test(path));
      if (!route) return; // routes without a documented JSON 200 (metrics, swagger)
      const ok = route.validate(json);
      expect(ok, `${url}: ${ajv.errorsText(route.validate.errors)}`).toBe(true);
    },
  };
}

/** Follows next_key until it is null; returns every item in page order and the first total. */
export async function walk(
  h: Harness,
  path: string,
  listKey: string,
  query: Record<string, string | string[]> = {},
): Promise<{ items: unknown[]; total: string; pages: number }> {
  const items: unknown[] = [];
  let key: string | null = null;
  let total = '';
  let pages = 0;
  do {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
    }
    if (key !== null) params.set('pagination.key', key);
    const res = await h.get(`${path}?${params.toString()}`);
    expect(res.status, res.body).toBe(200);
    const body = res.json as Record<string, unknown> & {
      pagination: { next_key: string | null; previous_key: string | null; total: string };
    };
    const page = body[listKey] as unknown[];
    if (pages === 0) total = body.pagination.total;
    items.push(...page);
    pages += 1;
    if (body.pagination.next_key !== null) expect(page.length).toBeGreaterThan(0);
    key = body.pagination.next_key;
    expect(pages).toBeLessThan(500);
  } while (key !== null);
  return { items, total, pages };
}
