import { ibcTimeout, type NftPacket } from './ibc.js';
import { IBC, type NftOp } from '../../chain/nft-lifecycle.js';

/**
 * The ICS-721 packet that delivers one IBC-received NFT from L1, as every VM's simulator
 * receives it: the holder is both sender and receiver; only the destination port differs.
 */
export function nftReceivePacket(
  op: Extract<NftOp, { kind: 'ibc-receive' }>,
  holder: string,
  dstPort: string,
): NftPacket {
  return {
    sequence: op.index + 1,
    classId: IBC.classIdOnL1,
    tokenIds: [op.tokenId],
    tokenUris: [op.uri],
    sender: holder,
    receiver: holder,
    timeoutNs: ibcTimeout(op.index),
    dstPort,
  };
}
