import {
  collectionCreatedBy,
  collectionName,
  COLLECTIONS,
  IBC,
  ibcCollectionCreatedBy,
  ibcTokensAfter,
  nftOpAt,
  tokensAfter,
  type Holder,
  type NftPlanContext,
} from '../chain/nft-lifecycle.js';
import type { NftCollectionTruth, NftMoveTruth, NftTokenTruth } from '../types.js';

/** How one VM names collections and holders in the ground truth. */
export interface NftNaming {
  plan: NftPlanContext;
  /** Collection address: 0x + 64 hex (Move objects, Wasm contracts) or 0x + 40 hex (EVM). */
  collectionAddr(c: number): string;
  collectionName(c: number): string;
  creator(c: number): string;
  ibcCollectionAddr: string;
  ibcName: string;
  ibcCreator: string;
  holder(h: Holder): string;
}

export function nftTokensTruth(naming: NftNaming, lastG: number): NftTokenTruth[] {
  const regular = tokensAfter(naming.plan, lastG).map((t) => ({
    collectionAddr: naming.collectionAddr(t.collection),
    tokenId: t.tokenId,
    owner: naming.holder(t.owner),
    uri: t.uri,
  }));
  const ibc = ibcTokensAfter(naming.plan, lastG).map((t) => ({
    collectionAddr: naming.ibcCollectionAddr,
    tokenId: t.tokenId,
    owner: naming.holder(t.owner),
    uri: t.uri,
  }));
  return [...regular, ...ibc].sort((a, b) =>
    a.collectionAddr === b.collectionAddr
      ? Number(a.tokenId) - Number(b.tokenId)
      : a.collectionAddr < b.collectionAddr
        ? -1
        : 1,
  );
}

export function nftCollectionsTruth(naming: NftNaming, lastG: number): NftCollectionTruth[] {
  const tokens = nftTokensTruth(naming, lastG);
  const count = (addr: string): number => tokens.filter((t) => t.collectionAddr === addr).length;
  const out: NftCollectionTruth[] = [];
  for (let c = 0; c < COLLECTIONS; c++) {
    if (!collectionCreatedBy(naming.plan, c, lastG)) continue;
    const addr = naming.collectionAddr(c);
    out.push({
      addr,
      name: naming.collectionName(c),
      creator: naming.creator(c),
      originName: '',
      nftCount: count(addr),
    });
  }
  if (ibcCollectionCreatedBy(naming.plan, lastG)) {
    out.push({
      addr: naming.ibcCollectionAddr,
      name: naming.ibcName,
      creator: naming.ibcCreator,
      originName: IBC.l1Name,
      nftCount: count(naming.ibcCollectionAddr),
    });
  }
  return out.sort((a, b) => (a.addr < b.addr ? -1 : 1));
}

/**
 * The mints and transfers of global txs firstG..lastG (one block, at `height`), from the closed-form
 * lifecycle rather than from the events the VMs render. NFT operations never fail.
 */
export function nftMovesTruth(
  naming: NftNaming,
  height: number,
  firstG: number,
  lastG: number,
): NftMoveTruth[] {
  const out: NftMoveTruth[] = [];
  for (let g = firstG; g <= lastG; g++) {
    const op = nftOpAt(naming.plan, g);
    const at = { height, txIndex: g - firstG };
    if (op?.kind === 'mint')
      out.push({
        ...at,
        kind: 'mint',
        collectionAddr: naming.collectionAddr(op.collection),
        tokenId: op.tokenId,
        to: naming.holder(op.to),
      });
    else if (op?.kind === 'ibc-receive')
      out.push({
        ...at,
        kind: 'mint',
        collectionAddr: naming.ibcCollectionAddr,
        tokenId: op.tokenId,
        to: naming.holder(op.to),
      });
    else if (op?.kind === 'transfer')
      out.push({
        ...at,
        kind: 'transfer',
        collectionAddr: naming.collectionAddr(op.collection),
        tokenId: op.tokenId,
        from: naming.holder(op.from),
        to: naming.holder(op.to),
      });
  }
  return out;
}

export { collectionName };
