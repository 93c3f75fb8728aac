import type { FieldSchema, MessageSchema } from './schema.js';
import { makeMessageSchema } from './schema.js';

const COIN = 'cosmos.base.v1beta1.Coin';
const ANY = 'google.protobuf.Any';

/**
 * Hand-written schemas for OPinit messages, which neither npm package carries. Field numbers
 * follow initia-labs/OPinit proto/opinit/{opchild,ophost}/v1/tx.proto (older and newer
 * releases; a field number is never reused there). Messages that need the module's own types
 * (MsgSetBridgeInfo, MsgUpdateParams, migration messages) are not listed: they stay unknown and
 * go to the REST fallback, as does anything else.
 */
export function extraSchemas(): MessageSchema[] {
  const coin = (no: number, name: string) => ({ ...messageField(no, name, COIN), nonNullable: true });
  return [
    makeMessageSchema('opinit.opchild.v1.MsgExecuteMessages', [
      scalarField(1, 'sender', 'string'),
      messageField(2, 'messages', ANY, true),
    ]),
    makeMessageSchema('opinit.opchild.v1.MsgFinalizeTokenDeposit', [
      scalarField(1, 'sender', 'string'),
      scalarField(2, 'from', 'string'),
      scalarField(3, 'to', 'string'),
      coin(4, 'amount'),
      scalarField(5, 'sequence', 'uint64'),
      scalarField(6, 'height', 'uint64'),
      scalarField(7, 'base_denom', 'string'),
      scalarField(8, 'data', 'bytes'),
    ]),
    makeMessageSchema('opinit.opchild.v1.MsgInitiateTokenWithdrawal', [
      scalarField(1, 'sender', 'string'),
      scalarField(2, 'to', 'string'),
      coin(4, 'amount'),
    ]),
    makeMessageSchema('opinit.opchild.v1.MsgRemoveValidator', [
      scalarField(1, 'authority', 'string'),
      scalarField(2, 'validator_address', 'string'),
    ]),
    makeMessageSchema('opinit.opchild.v1.MsgSpendFeePool', [
      scalarField(1, 'authority', 'string'),
      scalarField(2, 'recipient', 'string'),
      messageField(3, 'amount', COIN, true),
    ]),
    makeMessageSchema('opinit.opchild.v1.MsgUpdateOracle', [
      scalarField(1, 'sender', 'string'),
      scalarField(2, 'height', 'uint64'),
      scalarField(3, 'data', 'bytes'),
    ]),
    ...keyedValidatorMsgs(
      ['MsgAddValidator', 'validator_address'],
      ['MsgUpdateSequencer', 'sequencer_address'],
      ['MsgAddAttestor', 'attestor_address'],
    ),
    makeMessageSchema('opinit.opchild.v1.MsgRemoveAttestor', [
      scalarField(1, 'authority', 'string'),
      scalarField(2, 'attestor_address', 'string'),
    ]),
    ...[
      'MsgAddFeeWhitelistAddresses',
      'MsgRemoveFeeWhitelistAddresses',
      'MsgAddBridgeExecutor',
      'MsgRemoveBridgeExecutor',
    ].map((name) =>
      makeMessageSchema(`opinit.opchild.v1.${name}`, [
        scalarField(1, 'authority', 'string'),
        scalarField(2, 'addresses', 'string', true),
      ]),
    ),
    makeMessageSchema('opinit.opchild.v1.MsgUpdateMinGasPrices', [
      scalarField(1, 'authority', 'string'),
      messageField(2, 'min_gas_prices', 'cosmos.base.v1beta1.DecCoin', true),
    ]),
    makeMessageSchema('opinit.opchild.v1.MsgUpdateAdmin', [
      scalarField(1, 'authority', 'string'),
      scalarField(2, 'new_admin', 'string'),
    ]),
    makeMessageSchema('opinit.ophost.v1.MsgInitiateTokenDeposit', [
      scalarField(1, 'sender', 'string'),
      scalarField(2, 'bridge_id', 'uint64'),
      scalarField(3, 'to', 'string'),
      coin(4, 'amount'),
      scalarField(5, 'data', 'bytes'),
    ]),
    makeMessageSchema('opinit.ophost.v1.MsgFinalizeTokenWithdrawal', [
      scalarField(1, 'sender', 'string'),
      scalarField(2, 'bridge_id', 'uint64'),
      scalarField(3, 'output_index', 'uint64'),
      scalarField(4, 'withdrawal_proofs', 'bytes', true),
      scalarField(5, 'from', 'string'),
      scalarField(6, 'to', 'string'),
      scalarField(7, 'sequence', 'uint64'),
      coin(8, 'amount'),
      scalarField(9, 'version', 'bytes'),
      scalarField(10, 'storage_root', 'bytes'),
      scalarField(11, 'last_block_hash', 'bytes'),
    ]),
  ];
}

/** authority, moniker, <address field>, pubkey (Any) — the opchild validator-set messages. */
function keyedValidatorMsgs(...specs: [string, string][]): MessageSchema[] {
  return specs.map(([name, addressField]) =>
    makeMessageSchema(`opinit.opchild.v1.${name}`, [
      scalarField(1, 'authority', 'string'),
      scalarField(2, 'moniker', 'string'),
      scalarField(3, addressField, 'string'),
      messageField(4, 'pubkey', ANY),
    ]),
  );
}

export function scalarField(
  no: number,
  name: string,
  kind: FieldSchema['kind'],
  repeated = false,
): FieldSchema {
  return {
    no,
    name,
    kind,
    repeated,
    packed: false,
    oneof: false,
    nonNullable: false,
    rawJson: false,
  };
}

export function messageField(no: number, name: string, typeName: string, repeated = false): FieldSchema {
  return { ...scalarField(no, name, 'message', repeated), typeName };
}
