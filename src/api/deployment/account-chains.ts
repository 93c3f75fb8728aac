import { bech32 } from 'bech32';
import { InputError } from '../../shared/errors.js';
import { parsePagination, type CursorKind, type PageRequest, type PaginationQuery } from '../pagination.js';
import type { Db } from '../../store/driver/db.js';
import { createDictReader, type DictReader } from '../../store/readers/dicts.js';
import type { ReaderContext } from '../../store/readers/context.js';
import type { ChainDirectory, DeployedChain } from './directory.js';

/** How long a cross-chain route waits for one chain's database before naming it unavailable. */
export const CHAIN_READ_TIMEOUT_MS = 2000;

/** A chain's readers, built once per opened database. */
export interface ChainReaders {
  ctx: ReaderContext;
  dicts: DictReader;
}

const readersByDb = new WeakMap<Db, ChainReaders>();

/** The chain's readers, or undefined when it cannot answer (its API or database not open). */
export function chainReaders(chain: DeployedChain): ChainReaders | undefined {
  const db = chain.db();
  if (!db || !chain.handler()) return undefined;
  let readers = readersByDb.get(db);
  if (!readers) {
    readers = { ctx: { db, countTimeoutMs: CHAIN_READ_TIMEOUT_MS }, dicts: createDictReader({ db }) };
    readersByDb.set(db, readers);
  }
  return readers;
}

/** Thrown when a chain cannot answer in time or at all: the route names it unavailable. */
export class ChainUnavailable extends Error {
  constructor(readonly chainId: string) {
    super(`chain ${chainId} is unavailable`);
  }
}

/** Runs `read` on the chain's readers within the timeout; any failure is ChainUnavailable. */
export async function readChain<T>(
  chain: DeployedChain,
  read: (r: ChainReaders) => Promise<T>,
  timeoutMs = CHAIN_READ_TIMEOUT_MS,
): Promise<T> {
  const readers = chainReaders(chain);
  if (!readers) throw new ChainUnavailable(chain.chainId);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ChainUnavailable(chain.chainId)), timeoutMs);
  });
  try {
    return await Promise.race([read(readers), timeout]);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new ChainUnavailable(chain.chainId);
  } finally {
    clearTimeout(timer);
  }
}

/** `{ok}` or the chain's id as unavailable, so one chain never fails the whole answer. */
export async function settleChain<T>(
  chain: DeployedChain,
  read: (r: ChainReaders) => Promise<T>,
): Promise<{ chain: DeployedChain; ok: true; value: T } | { chain: DeployedChain; ok: false }> {
  try {
    return { chain, ok: true, value: await readChain(chain, read) };
  } catch (error) {
    if (error instanceof ChainUnavailable) return { chain, ok: false };
    throw error;
  }
}

const HEX20 = /^0x[0-9a-fA-F]{40}$/;
const HEX32_PADDED = /^0x0{24}([0-9a-fA-F]{40})$/;

/**
 * The account's 20 bytes from `init1…` bech32, `0x` + 40 hex, or `0x` + 64 hex with 12 leading
 * zero bytes (docs/chains.md §4); anything else is a 400 naming `address`.
 */
export function parseAccountAddress(raw: string, prefix: string): Uint8Array {
  if (HEX20.test(raw)) return Buffer.from(raw.slice(2), 'hex');
  const padded = HEX32_PADDED.exec(raw);
  if (padded) return Buffer.from(padded[1]!, 'hex');
  try {
    const decoded = bech32.decode(raw);
    const bytes = Uint8Array.from(bech32.fromWords(decoded.words));
    if (decoded.prefix === prefix && bytes.length === 20) return bytes;
  } catch {
    // falls through to the 400
  }
  throw new InputError(
    'invalid_account',
    `[INVALID_VALUE] invalid value for address: ${raw} (${prefix}1… bech32, 0x + 40 hex, or 0x + 64 hex with 12 leading zero bytes)`,
  );
}

/** `chain_ids` (comma list, repeatable) as the directory's chains; unknown ids are a 400 naming it. */
export function selectChains(directory: ChainDirectory, raw: string | string[] | undefined): DeployedChain[] {
  if (raw === undefined) return [...directory.chains];
  const ids = (Array.isArray(raw) ? raw : [raw])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const unknown = ids.filter((id) => !directory.get(id));
  if (ids.length === 0 || unknown.length > 0)
    throw new InputError(
      'invalid_chain_ids',
      `[INVALID_VALUE] invalid value for chain_ids: ${unknown.length > 0 ? unknown.join(',') : '(empty)'} (not a chain of this deployment: GET /chains lists them)`,
    );
  const wanted = new Set(ids);
  return directory.chains.filter((c) => wanted.has(c.chainId));
}

/**
 * The account routes' pagination (docs/chains.md §4): as the single-chain routes parse it, except
 * `pagination.offset`, which is refused: a walk across chains follows `next_key`.
 */
export function parseAccountPagination(query: PaginationQuery, cursor: CursorKind): PageRequest {
  const page = parsePagination(query, cursor);
  if (page.offset > 0)
    throw new InputError(
      'invalid_pagination',
      'pagination.offset is not supported across chains: follow pagination.next_key',
    );
  return page;
}
