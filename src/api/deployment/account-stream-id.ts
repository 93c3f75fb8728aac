import { tryAccountBytes } from '../../shared/address.js';
import { InputError } from '../../shared/errors.js';
import { GrpcCode, HttpError } from '../errors.js';
import type { ChainDirectory, DeployedChain } from './directory.js';

/**
 * The account stream's event id (docs/chains.md §4.4): every chain's position, the sequence of
 * the last tx the client has from it, as `chain:sequence` pairs joined by commas, each chain id
 * percent-encoded (`minimove-1:120,minievm-1:88`). A `Last-Event-ID` of this form resumes every
 * chain it names after its own position.
 */
export type ChainPositions = ReadonlyMap<string, number>;

export function encodePositions(positions: ChainPositions): string {
  const parts: string[] = [];
  for (const [chainId, sequence] of positions) parts.push(`${encodeURIComponent(chainId)}:${sequence}`);
  return parts.join(',');
}

/** Parses an event id; `name` is what the error names (the header or `last_event_id`). */
export function parsePositions(text: string, name: string): Map<string, number> {
  const positions = new Map<string, number>();
  const trimmed = text.trim();
  if (trimmed === '') return positions;
  for (const part of trimmed.split(',')) {
    const colon = part.lastIndexOf(':');
    const sequence = colon > 0 ? part.slice(colon + 1) : '';
    let chainId: string | undefined;
    try {
      chainId = decodeURIComponent(part.slice(0, colon));
    } catch {
      chainId = undefined;
    }
    if (chainId === undefined || !/^\d{1,15}$/.test(sequence) || positions.has(chainId)) {
      throw new InputError(
        'invalid_last_event_id',
        `${name} must be an account stream event id (chain_id:sequence pairs joined by commas), got "${text}"`,
      );
    }
    positions.set(chainId, Number(sequence));
  }
  return positions;
}

/** Where the client resumes: the `Last-Event-ID` header wins over `last_event_id`. */
export function resumePositions(
  header: string | string[] | undefined,
  query: Readonly<Record<string, unknown>>,
): Map<string, number> | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined) return parsePositions(value, 'Last-Event-ID header');
  const param = query.last_event_id;
  if (typeof param === 'string') return parsePositions(param, 'last_event_id');
  return undefined;
}

/** The account's bytes as lower-case hex: bech32, `0x` + 40 hex, or `0x` + 64 hex with 12 zero bytes. */
export function parseStreamAccount(raw: string, prefix: string): string {
  const bytes = tryAccountBytes(raw, prefix);
  if (bytes === undefined)
    throw new InputError(
      'invalid_account',
      `[INVALID_VALUE] invalid value for address: ${raw} (invalid address format)`,
    );
  return Buffer.from(bytes).toString('hex');
}

/** `chain_ids` (a comma list) → those chains in the deployment's order; absent → every chain. */
export function selectChains(directory: ChainDirectory, raw: unknown): DeployedChain[] {
  if (raw === undefined) return [...directory.chains];
  const text = Array.isArray(raw) ? raw.join(',') : String(raw);
  const ids = text.split(',').map((id) => id.trim());
  if (ids.some((id) => id === ''))
    throw new InputError('invalid_chain_ids', `chain_ids must be a comma list of chain ids, got "${text}"`);
  for (const id of ids) {
    if (!directory.get(id))
      throw new HttpError(
        404,
        GrpcCode.notFound,
        `chain_ids: unknown chain id "${id}": GET /chains lists this deployment's chains`,
        'chain_not_found',
      );
  }
  const wanted = new Set(ids);
  return directory.chains.filter((c) => wanted.has(c.chainId));
}
