import { describe, expect, it } from 'vitest';
import { encodeMessage } from './encode.js';
import { createProtoRegistry } from './registry.js';
import { formatTimestamp, newProblems, renderMessage } from './render.js';
import type { JsonObject } from './render.js';
import type { MessageSchema } from './schema.js';
import { WireWriter } from './wire.js';

const registry = createProtoRegistry();

function schema(name: string): MessageSchema {
  const s = registry.message(name);
  if (!s) throw new Error(`no schema ${name}`);
  return s;
}

function roundTrip(name: string, json: JsonObject): JsonObject {
  const bytes = encodeMessage(registry, schema(name), json, name);
  const problems = newProblems();
  const out = renderMessage(registry, schema(name), bytes, 0, bytes.length, problems);
  expect(problems.unknownTypes.size + problems.unknownFields.size).toBe(0);
  return out;
}

function renderBytes(name: string, bytes: Uint8Array): JsonObject {
  return renderMessage(registry, schema(name), bytes, 0, bytes.length, newProblems());
}

describe('REST rendering of nested and special types', () => {
  it('renders authz MsgExec with nested Any messages', () => {
    const json = {
      grantee: 'init1grantee',
      msgs: [
        {
          '@type': '/cosmwasm.wasm.v1.MsgExecuteContract',
          sender: 'init1granter',
          contract: 'init1contract',
          msg: { transfer: { recipient: 'init1r', amount: '1' } },
          funds: [],
        },
      ],
    };
    expect(roundTrip('cosmos.authz.v1beta1.MsgExec', json)).toEqual(json);
  });

  it('renders feegrant allowances with Timestamp and Duration as strings, unset ones as null', () => {
    const json = {
      granter: 'init1a',
      grantee: 'init1b',
      allowance: {
        '@type': '/cosmos.feegrant.v1beta1.PeriodicAllowance',
        basic: { spend_limit: [], expiration: '2026-01-02T03:04:05.120Z' },
        period: '86400s',
        period_spend_limit: [{ denom: 'uinit', amount: '5' }],
        period_can_spend: [],
        period_reset: '0001-01-01T00:00:00Z',
      },
    };
    expect(roundTrip('cosmos.feegrant.v1beta1.MsgGrantAllowance', json)).toEqual(json);
    const noExpiry = renderBytes(
      'cosmos.feegrant.v1beta1.BasicAllowance',
      encodeMessage(registry, schema('cosmos.feegrant.v1beta1.BasicAllowance'), { spend_limit: [] }, 'x'),
    );
    expect(noExpiry).toEqual({ spend_limit: [], expiration: null });
  });

  it('renders a multisig signer (LegacyAminoPubKey, ModeInfo.multi) and omits the unset oneof member', () => {
    const json = {
      public_key: {
        '@type': '/cosmos.crypto.multisig.LegacyAminoPubKey',
        threshold: 2,
        public_keys: [
          { '@type': '/cosmos.crypto.secp256k1.PubKey', key: 'A4MYU1tUEF1Keq5gwI/EX5aHGBtP38YlvRp1P6c5f+11' },
          { '@type': '/cosmos.crypto.secp256k1.PubKey', key: 'A1zIA//23mfmwrTq+fNkKNRBtYyomNhXdchYk2q0OB0P' },
        ],
      },
      mode_info: {
        multi: {
          bitarray: { extra_bits_stored: 2, elems: 'wA==' },
          mode_infos: [
            { single: { mode: 'SIGN_MODE_LEGACY_AMINO_JSON' } },
            { single: { mode: 'SIGN_MODE_DIRECT' } },
          ],
        },
      },
      sequence: '3',
    };
    const out = roundTrip('cosmos.tx.v1beta1.SignerInfo', json);
    expect(out).toEqual(json);
    expect(Object.keys(out['mode_info'] as object)).toEqual(['multi']);
  });

  it('writes the zero value of an absent non-nullable Height, as the gateway does', () => {
    const json = {
      source_port: 'transfer',
      source_channel: 'channel-0',
      token: { denom: 'uinit', amount: '1' },
      sender: 'init1a',
      receiver: 'init1b',
      timeout_timestamp: '1760971414377000000',
      memo: '',
    };
    const bytes = encodeMessage(registry, schema('ibc.applications.transfer.v1.MsgTransfer'), json, 'x');
    const out = renderBytes('ibc.applications.transfer.v1.MsgTransfer', bytes);
    expect(out['timeout_height']).toEqual({ revision_number: '0', revision_height: '0' });
  });

  it('renders Wasm msg bytes that are not JSON as base64 instead of failing', () => {
    const w = new WireWriter();
    w.tag(3, 2);
    w.lengthDelimited(Buffer.from([0xff, 0x00]));
    const out = renderBytes('cosmwasm.wasm.v1.MsgExecuteContract', w.finish());
    expect(out['msg']).toBe('/wA=');
  });

  it('keeps exact 64-bit integers (negative int64, max uint64) and packed repeated values', () => {
    const json = { authority: 'init1gov', code_ids: ['1', '18446744073709551615'] };
    expect(roundTrip('cosmwasm.wasm.v1.MsgPinCodes', json)).toEqual(json);
    expect(formatTimestamp(-62135596800n, 0)).toBe('0001-01-01T00:00:00Z');
    expect(formatTimestamp(1748779200n, 123456789)).toBe('2025-06-01T12:00:00.123456789Z');
  });
});

describe('hand-written OPinit schemas', () => {
  it('round-trips MsgUpdateOracle and a validator-set message', () => {
    const oracle = { sender: 'init1s', height: '123', data: 'AQI=' };
    expect(roundTrip('opinit.opchild.v1.MsgUpdateOracle', oracle)).toEqual(oracle);
    const attestor = {
      authority: 'init1gov',
      moniker: 'a',
      attestor_address: 'initvaloper1x',
      pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: Buffer.alloc(32, 1).toString('base64') },
    };
    expect(roundTrip('opinit.opchild.v1.MsgAddAttestor', attestor)).toEqual(attestor);
  });
});
