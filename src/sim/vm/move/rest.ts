import { tryAccountBytes } from '../../../shared/address.js';
import type { SimAccount } from '../../chain/keys.js';
import { Lru } from '../../chain/lru.js';
import { pad32, shortHex } from './address.js';
import type { MoveAddressBook } from './model.js';
import {
  moveCollectionAddress,
  moveIbcClassName,
  moveIbcCollectionAddress,
  moveIbcNftAddress,
  moveNftAddress,
  type MoveNftContext,
  moveHolderAddress,
} from './nft.js';
import { bcs, concatBytes } from '../../chain/msgs.js';
import {
  collectionCreatedBy,
  collectionCreator,
  collectionName,
  collectionOf,
  COLLECTIONS,
  gOfSlotPhase,
  ibcCollectionCreatedBy,
  ibcTokenAfter,
  ibcTokensAfter,
  tokenAfter,
  tokenIdOf,
  tokensAfter,
  type TokenState,
} from '../../chain/nft-lifecycle.js';
import { grpcError, ok, type RestAnswer } from '../../surfaces/rest/blocks.js';
import { queryHeight } from '../../surfaces/rest/state.js';
import type { SimHttpRequest } from '../../types.js';

/** Move resources by struct tag (NFT, collection, object core, FA metadata), as of a height. */
export interface MoveRestContext {
  nft: MoveNftContext;
  book: MoveAddressBook;
  accounts: SimAccount[];
  denoms: string[];
  head(): number;
  /** The lowest height whose state the node keeps. */
  base?(): number;
  /** Last global tx index included at `height`. */
  lastTxAt(height: number): number;
}

interface MoveObject {
  kind: 'nft' | 'collection';
  owner: Uint8Array;
  collection: Uint8Array;
  tokenId: string;
  uri: string;
  name: string;
  creator: Uint8Array;
  length: number;
}

const hex = (b: Uint8Array): string => Buffer.from(pad32(b)).toString('hex');

const creatorOf = (ctx: MoveRestContext, c: number): Uint8Array =>
  ctx.accounts[collectionCreator(ctx.nft.plan, c)]!.address;

function tokenObject(ctx: MoveRestContext, t: TokenState): MoveObject {
  return {
    kind: 'nft',
    owner: moveHolderAddress(ctx.nft, t.owner),
    collection: moveCollectionAddress(ctx.nft, t.collection),
    tokenId: t.tokenId,
    uri: t.uri,
    name: collectionName(t.collection),
    creator: creatorOf(ctx, t.collection),
    length: 0,
  };
}

function ibcTokenObject(
  ctx: MoveRestContext,
  t: { tokenId: string; owner: number; uri: string },
): MoveObject {
  return {
    kind: 'nft',
    owner: moveHolderAddress(ctx.nft, t.owner),
    collection: moveIbcCollectionAddress(),
    tokenId: t.tokenId,
    uri: t.uri,
    name: moveIbcClassName(),
    creator: Uint8Array.of(1),
    length: 0,
  };
}

/**
 * The collection objects after `lastG`, each with its live token count. Tokens are answered by
 * `createTokenIndex`: a map of every token per height held ~200 MB per cached height at 250k
 * heights (666k tokens), and its GC cost slowed every other request of the process.
 */
function collectionsAt(ctx: MoveRestContext, lastG: number): Map<string, MoveObject> {
  const collections = new Map<string, MoveObject>();
  const counts = new Array<number>(COLLECTIONS).fill(0);
  for (const t of tokensAfter(ctx.nft.plan, lastG)) counts[t.collection]!++;
  for (let c = 0; c < COLLECTIONS; c++) {
    if (!collectionCreatedBy(ctx.nft.plan, c, lastG)) continue;
    const addr = moveCollectionAddress(ctx.nft, c);
    collections.set(hex(addr), {
      kind: 'collection',
      owner: creatorOf(ctx, c),
      collection: addr,
      tokenId: '',
      uri: `ipfs://bafysim${c}`,
      name: collectionName(c),
      creator: creatorOf(ctx, c),
      length: counts[c]!,
    });
  }
  if (ibcCollectionCreatedBy(ctx.nft.plan, lastG)) {
    const ibcColl = moveIbcCollectionAddress();
    collections.set(hex(ibcColl), {
      kind: 'collection',
      owner: Uint8Array.of(1),
      collection: ibcColl,
      tokenId: '',
      uri: 'ipfs://bafyl1',
      name: moveIbcClassName(),
      creator: Uint8Array.of(1),
      length: ibcTokensAfter(ctx.nft.plan, lastG).length,
    });
  }
  return collections;
}

/**
 * NFT object address → the tokens minted at it (a re-mint reuses its burnt root's address), grown
 * as later heights are asked. Ingest asks for each mint at its own height: one token's state is
 * closed-form, where rebuilding every object per height made a chain's look-ups quadratic.
 */
function createTokenIndex(ctx: MoveRestContext) {
  type Ref = { slot: number } | { ibc: number };
  const refs = new Map<string, Ref[]>();
  const add = (address: Uint8Array, ref: Ref) => {
    const list = refs.get(hex(address));
    if (list) list.push(ref);
    else refs.set(hex(address), [ref]);
  };
  const plan = ctx.nft.plan;
  let slots = 0;
  let ibc = 0;
  /** The token at `address` after `lastG`; null when none is live there, undefined for no token address. */
  return (address: Uint8Array, lastG: number): MoveObject | null | undefined => {
    for (; gOfSlotPhase(plan, slots, 0) <= lastG; slots++)
      add(moveNftAddress(ctx.nft, collectionOf(slots), tokenIdOf(slots)), { slot: slots });
    for (; ibcTokenAfter(plan, ibc, lastG); ibc++) add(moveIbcNftAddress(String(ibc + 1)), { ibc });
    const list = refs.get(hex(address));
    if (!list) return undefined;
    // The latest mint at this address by lastG decides (the index may run ahead of lastG).
    for (let i = list.length - 1; i >= 0; i--) {
      const ref = list[i]!;
      if ('ibc' in ref) {
        const token = ibcTokenAfter(plan, ref.ibc, lastG);
        if (token) return ibcTokenObject(ctx, token);
      } else if (gOfSlotPhase(plan, ref.slot, 0) <= lastG) {
        const token = tokenAfter(plan, ref.slot, lastG);
        return token ? tokenObject(ctx, token) : null;
      }
    }
    return undefined;
  };
}

function resource(address: Uint8Array, structTag: string, data: unknown, raw: Uint8Array): RestAnswer {
  return ok(
    JSON.stringify({
      resource: {
        address: shortHex(address),
        struct_tag: structTag,
        move_resource: JSON.stringify({ type: structTag, data }),
        raw_bytes: Buffer.from(raw).toString('base64'),
      },
    }),
  );
}

export function createMoveRest(ctx: MoveRestContext): (req: SimHttpRequest) => RestAnswer | undefined {
  const cache = new Lru<number, Map<string, MoveObject>>(8);
  const collectionsOf = (lastG: number) => cache.getOrSet(lastG, () => collectionsAt(ctx, lastG));
  const tokenAt = createTokenIndex(ctx);
  const objectAt = (address: Uint8Array, lastG: number): MoveObject | undefined => {
    const token = tokenAt(address, lastG);
    return token === null ? undefined : (token ?? collectionsOf(lastG).get(hex(address)));
  };
  const metadataByAddr = new Map(ctx.denoms.map((d) => [hex(ctx.book.metadata(d)), d]));
  return (req) => {
    if (req.path === '/initia/move/v1/denom') {
      // The bank denom of a fungible asset's metadata object (x/move Query/Denom).
      const metadata = tryAccountBytes(req.query.get('metadata') ?? '', 'init');
      const denom = metadata && metadataByAddr.get(hex(metadata));
      if (denom === undefined)
        return grpcError(404, 5, `metadata ${req.query.get('metadata') ?? ''}: not found`);
      return ok(JSON.stringify({ denom }));
    }
    const m = /^\/initia\/move\/v1\/accounts\/([^/]+)\/resources\/by_struct_tag$/.exec(req.path);
    if (!m) return undefined;
    const h = queryHeight(ctx, req);
    if (typeof h !== 'number') return h;
    const bytes = tryAccountBytes(m[1]!, 'init');
    if (!bytes) return grpcError(400, 3, `invalid address: ${m[1]}`);
    const tag = req.query.get('struct_tag') ?? '';
    const notFound = grpcError(404, 5, `resource ${tag} not found at ${m[1]}: not found`);
    if (tag === '0x1::fungible_asset::Metadata') {
      const denom = metadataByAddr.get(hex(bytes));
      if (denom === undefined) return notFound;
      const data = { name: denom, symbol: denom.toUpperCase(), decimals: 6, icon_uri: '', project_uri: '' };
      return resource(
        bytes,
        tag,
        data,
        concatBytes([
          bcs.string(denom),
          bcs.string(data.symbol),
          Uint8Array.of(6),
          bcs.string(''),
          bcs.string(''),
        ]),
      );
    }
    // Metadata objects are not NFT objects: asked first, they never cost an object rebuild.
    const obj = objectAt(bytes, ctx.lastTxAt(h));
    if (!obj) return notFound;
    if (tag === '0x1::object::ObjectCore') {
      const data = { allow_ungated_transfer: true, owner: shortHex(obj.owner), version: '1' };
      return resource(bytes, tag, data, concatBytes([pad32(obj.owner), Uint8Array.of(1), bcs.u64(1)]));
    }
    if (tag === '0x1::nft::Nft' && obj.kind === 'nft') {
      const data = {
        collection: { inner: shortHex(obj.collection) },
        description: '',
        token_id: obj.tokenId,
        uri: obj.uri,
      };
      return resource(
        bytes,
        tag,
        data,
        concatBytes([pad32(obj.collection), bcs.string(''), bcs.string(obj.tokenId), bcs.string(obj.uri)]),
      );
    }
    if (tag === '0x1::collection::Collection' && obj.kind === 'collection') {
      const handle = new Uint8Array(Buffer.from(hex(obj.collection), 'hex').reverse());
      const data = {
        creator: shortHex(obj.creator),
        description: '',
        name: obj.name,
        nfts: { handle: shortHex(handle), length: String(obj.length) },
        uri: obj.uri,
      };
      return resource(
        bytes,
        tag,
        data,
        concatBytes([
          pad32(obj.creator),
          bcs.string(''),
          bcs.string(obj.name),
          bcs.string(obj.uri),
          pad32(handle),
          bcs.u64(obj.length),
        ]),
      );
    }
    return notFound;
  };
}
