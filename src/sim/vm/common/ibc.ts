import { MsgRecvPacket } from '@initia/initia.proto/ibc/core/channel/v1/tx.js';
import { event, type SimEvent } from '../../chain/events.js';
import { sha256 } from '../../chain/keys.js';
import { IBC } from '../../chain/nft-lifecycle.js';
import type { NftTxParts } from '../../chain/plan.js';
import type { EncodedMsg } from '../../chain/tx-build.js';

export const MSG_RECV_PACKET = '/ibc.core.channel.v1.MsgRecvPacket';

export interface NftPacket {
  sequence: number;
  classId: string;
  tokenIds: string[];
  tokenUris: string[];
  sender: string;
  receiver: string;
  timeoutNs: string;
  /** "nft-transfer" (Move, EVM) or "wasm.<ics721 contract>" (Wasm). */
  dstPort: string;
}

/** ICS-721 packet data as the L1 Move nft-transfer module writes it (keys sorted). */
export function nftPacketData(p: NftPacket): string {
  const classData = Buffer.from(
    JSON.stringify({ name: IBC.l1Name, description: 'Simulated L1 collection' }),
  ).toString('base64');
  return JSON.stringify({
    classData,
    classId: p.classId,
    classUri: 'ipfs://bafyl1',
    receiver: p.receiver,
    sender: p.sender,
    tokenData: p.tokenIds.map(() => Buffer.from('{}').toString('base64')),
    tokenIds: p.tokenIds,
    tokenUris: p.tokenUris,
  });
}

/** The L2 class name of an ICS-721 class received over `dstChannel`: ibc/UPPER(sha256(path)). */
export function ibcClassName(classId: string): string {
  return 'ibc/' + sha256(`nft-transfer/${IBC.dstChannel}/${classId}`).toString('hex').toUpperCase();
}

export function msgRecvPacket(p: NftPacket, relayer: string, proofHeight: number): EncodedMsg {
  const data = Buffer.from(nftPacketData(p));
  const proof = sha256(`proof/${p.sequence}`);
  const packet = {
    sequence: BigInt(p.sequence),
    sourcePort: 'nft-transfer',
    sourceChannel: IBC.srcChannel,
    destinationPort: p.dstPort,
    destinationChannel: IBC.dstChannel,
    data,
    timeoutHeight: { revisionNumber: 0n, revisionHeight: 0n },
    timeoutTimestamp: BigInt(p.timeoutNs),
  };
  const value = MsgRecvPacket.encode({
    packet,
    proofCommitment: proof,
    proofHeight: { revisionNumber: 1n, revisionHeight: BigInt(proofHeight) },
    signer: relayer,
  }).finish();
  const json =
    `{"@type":"${MSG_RECV_PACKET}","packet":{"sequence":"${p.sequence}","source_port":"nft-transfer",` +
    `"source_channel":"${IBC.srcChannel}","destination_port":"${p.dstPort}","destination_channel":"${IBC.dstChannel}",` +
    `"data":"${data.toString('base64')}","timeout_height":{"revision_number":"0","revision_height":"0"},` +
    `"timeout_timestamp":"${p.timeoutNs}"},"proof_commitment":"${proof.toString('base64')}",` +
    `"proof_height":{"revision_number":"1","revision_height":"${proofHeight}"},"signer":"${relayer}"}`;
  return {
    typeUrl: MSG_RECV_PACKET,
    value,
    json,
    amino: {
      type: 'cosmos-sdk/MsgRecvPacket',
      value: JSON.parse(json.replace(`"@type":"${MSG_RECV_PACKET}",`, '')) as unknown,
    },
  };
}

function packetAttributes(p: NftPacket): Array<[string, string]> {
  const data = nftPacketData(p);
  return [
    ['packet_data', data],
    ['packet_data_hex', Buffer.from(data).toString('hex')],
    ['packet_timeout_height', '0-0'],
    ['packet_timeout_timestamp', p.timeoutNs],
    ['packet_sequence', String(p.sequence)],
    ['packet_src_port', 'nft-transfer'],
    ['packet_src_channel', IBC.srcChannel],
    ['packet_dst_port', p.dstPort],
    ['packet_dst_channel', IBC.dstChannel],
    ['packet_channel_ordering', 'ORDER_UNORDERED'],
    ['packet_connection', 'connection-3'],
    ['connection_id', 'connection-3'],
  ];
}

/**
 * Events of MsgRecvPacket around the VM-specific class creation / mint events. The nft-transfer
 * module (Move, EVM) adds class_trace and non_fungible_token_packet; ics721 (Wasm) does not.
 */
export function recvPacketEvents(
  p: NftPacket,
  relayer: string,
  classEvents: SimEvent[],
  className: string,
): SimEvent[] {
  const trace = className.startsWith('ibc/')
    ? className.slice(4)
    : sha256(className).toString('hex').toUpperCase();
  const nftTransferModule = p.dstPort === 'nft-transfer';
  const moduleEvent = event('non_fungible_token_packet', [
    ['module', 'nonfungibletokentransfer'],
    ['sender', p.sender],
    ['receiver', p.receiver],
    ['class_id', p.classId],
    ['token_ids', p.tokenIds.join(',')],
    ['memo', ''],
    ['success', 'true'],
  ]);
  return [
    event('message', [
      ['action', MSG_RECV_PACKET],
      ['sender', relayer],
    ]),
    event('recv_packet', packetAttributes(p)),
    event('message', [['module', 'ibc_channel']]),
    ...(nftTransferModule
      ? [
          event('class_trace', [
            ['trace_hash', trace],
            ['class_id', className],
          ]),
        ]
      : []),
    ...classEvents,
    ...(nftTransferModule ? [moduleEvent] : []),
    event('write_acknowledgement', [
      ...packetAttributes(p).slice(0, 9),
      ['packet_ack', '{"result":"AQ=="}'],
      ['packet_ack_hex', Buffer.from('{"result":"AQ=="}').toString('hex')],
      ...packetAttributes(p).slice(9),
    ]),
    event('message', [['module', 'ibc_channel']]),
  ];
}

/** Packet timeout timestamps (ns): 2026-01-01 plus one second per packet. */
export function ibcTimeout(index: number): string {
  return (1_767_225_600_000_000_000n + BigInt(index) * 1_000_000_000n).toString();
}

/**
 * The relayed MsgRecvPacket of one IBC-received NFT, as every VM's simulator builds it: proof
 * height 1000 + g, signed in DIRECT mode; only the class events, class name and gas differ.
 */
export function recvPacketParts(
  p: NftPacket,
  relayer: string,
  g: number,
  classEvents: SimEvent[],
  className: string,
  gasBase: number,
): NftTxParts {
  return {
    msg: msgRecvPacket(p, relayer, 1000 + g),
    events: recvPacketEvents(p, relayer, classEvents, className),
    response: MSG_RECV_PACKET + 'Response',
    gasBase,
    direct: true,
  };
}
