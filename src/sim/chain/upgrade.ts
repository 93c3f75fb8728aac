import { scalarField } from '../../shared/proto/extra-schemas.js';
import { makeMessageSchema, type MessageSchema } from '../../shared/proto/schema.js';
import { event, type SimEvent } from './events.js';
import type { PlannedTx, VmModel } from './plan.js';
import type { EncodedMsg } from './tx-build.js';
import type { SimulatorOptions } from '../types.js';
import { lenField, varintField } from './tx-wire.js';

/**
 * A chain upgrade that brings a message type no release of the indexer knows
 * (docs/node-data.md §4.3): from the upgrade height on, every `every`-th tx also carries a
 * `MsgNewThing`, genuinely encoded and signed with the rest of the tx. The node's REST, like a
 * node whose codec lacks the type, cannot render those txs (surfaces/rest/blocks.ts).
 */
export const UPGRADE_MSG_TYPE = '/initia.upgrade.v2.MsgNewThing';

/** Its protobuf schema: what a later release's registry knows (tests add it to the decoder's). */
export const UPGRADE_MSG_SCHEMA: MessageSchema = makeMessageSchema('initia.upgrade.v2.MsgNewThing', [
  scalarField(1, 'sender', 'string'),
  scalarField(2, 'thing_id', 'uint64'),
  scalarField(3, 'payload', 'bytes'),
]);

/** `SimulatorOptions.upgrade`: the first height whose txs may carry the type, one tx in `every`. */
export type UpgradeSpec = NonNullable<SimulatorOptions['upgrade']>;

/** MsgNewThing{sender, thing_id, payload}: the payload is 8 bytes derived from the id. */
export function msgNewThing(sender: string, thingId: number): EncodedMsg {
  const payload = Buffer.alloc(8);
  payload.writeBigUInt64BE((BigInt(thingId) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn);
  const payloadB64 = payload.toString('base64');
  return {
    typeUrl: UPGRADE_MSG_TYPE,
    value: Buffer.concat([lenField(1, Buffer.from(sender)), varintField(2, thingId), lenField(3, payload)]),
    json: `{"@type":"${UPGRADE_MSG_TYPE}","sender":"${sender}","thing_id":"${thingId}","payload":"${payloadB64}"}`,
    amino: { type: 'upgrade/MsgNewThing', value: { sender, thing_id: String(thingId), payload: payloadB64 } },
  };
}

function newThingEvents(sender: string, thingId: number): SimEvent[] {
  return [
    event('message', [
      ['action', UPGRADE_MSG_TYPE],
      ['sender', sender],
      ['module', 'upgrade'],
    ]),
    event('new_thing', [
      ['thing_id', String(thingId)],
      ['owner', sender],
    ]),
  ];
}

/**
 * The model with the upgrade applied: txs from global index `firstTx` on, one in `every`, get the
 * new message appended (its events and response type too). EVM-wrapped txs are left alone: their
 * signature is the Ethereum tx's, which covers no Cosmos message.
 */
export function withUpgrade(model: VmModel, firstTx: number, every: number): VmModel {
  return {
    plan(g) {
      const plan = model.plan(g);
      if (g < firstTx || (g - firstTx) % every !== 0 || plan.signMode === 'ETHEREUM') return plan;
      const sender = plan.signer.bech32;
      const upgraded: PlannedTx = {
        ...plan,
        msgs: [...plan.msgs, msgNewThing(sender, g)],
        msgEvents: [...plan.msgEvents, newThingEvents(sender, g)],
        msgResponseTypes: [...plan.msgResponseTypes, `${UPGRADE_MSG_TYPE}Response`],
      };
      return upgraded;
    },
    feeEvents: (tx) => model.feeEvents(tx),
  };
}
