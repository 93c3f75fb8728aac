import { readFileSync } from 'node:fs';
import { grpcError, ok, type RestAnswer } from './rest.js';
import type { SimHttpRequest } from './types.js';

/**
 * The Move resources recorded next to replayed txs (the samples' `mockApiResponses…` entries for
 * `GET /initia/move/v1/accounts/{addr}/resources`), served as the node's `by_struct_tag` route so
 * state look-ups of a replayed chain (NFT token ids, uris, collections) answer what the recorded
 * chain answered. Heights are ignored: a sample records one state per object.
 */
export type RecordedResources = Map<
  string,
  Array<{ struct_tag: string; move_resource: string; raw_bytes?: string; address?: string }>
>;

const RESOURCES_PATH = /^\/initia\/move\/v1\/accounts\/(0x[0-9a-fA-F]+)\/resources$/;
const BY_STRUCT_TAG = /^\/initia\/move\/v1\/accounts\/(0x[0-9a-fA-F]+)\/resources\/by_struct_tag$/;

const addrKey = (hex: string): string => hex.slice(2).toLowerCase().replace(/^0+/, '');

export function recordedResources(files: readonly string[]): RecordedResources {
  const out: RecordedResources = new Map();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'GET' && v !== null && typeof v === 'object') {
        for (const [path, body] of Object.entries(v as Record<string, unknown>)) {
          const m = RESOURCES_PATH.exec(path);
          const list = (body as { resources?: unknown } | null)?.resources;
          if (m && Array.isArray(list)) out.set(addrKey(m[1]!), list as never);
        }
      } else visit(v);
    }
  };
  for (const file of files) visit(JSON.parse(readFileSync(file, 'utf8')) as unknown);
  return out;
}

export function createRecordedResourceRest(
  resources: RecordedResources,
): (req: SimHttpRequest) => RestAnswer | undefined {
  return (req) => {
    const m = BY_STRUCT_TAG.exec(req.path);
    if (!m) return undefined;
    const tag = req.query.get('struct_tag') ?? '';
    const recorded = resources.get(addrKey(m[1]!));
    if (!recorded) return undefined; // not a recorded object: the generated chain answers
    const found = recorded.find((r) => r.struct_tag === tag);
    if (!found) return grpcError(404, 5, `resource ${tag} not found at ${m[1]}: not found`);
    return ok(JSON.stringify({ resource: found }));
  };
}
