import {
  collectionCreatedBy,
  collectionName,
  COLLECTIONS,
  IBC,
  ibcCollectionCreatedBy,
  ibcTokensAfter,
  tokensAfter,
  type Holder,
  type NftPlanContext,
} from '../chain/nft-lifecycle.js';
import type { NftCollectionTruth, NftTokenTruth } from '../types.js';

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

export { collectionName };
