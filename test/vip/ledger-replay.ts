import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApduTransport } from '../../src/vip/ledger.js';

export interface Exchange {
  apdu: string;
  response: string;
}

/**
 * Reads the device recordings (fixtures/ledger-eth-device.apdus): `[name]` sections of
 * `=> apdu` / `<= response` hex lines, `#` comments. Answers section name → exchanges.
 */
export function loadDeviceRecordings(): Map<string, Exchange[]> {
  const file = path.resolve('test', 'vip', 'fixtures', 'ledger-eth-device.apdus');
  const sections = new Map<string, Exchange[]>();
  let current: Exchange[] | undefined;
  let apdu: string | undefined;
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header?.[1]) {
      current = [];
      sections.set(header[1], current);
    } else if (line.startsWith('=> ') && current && apdu === undefined) {
      apdu = line.slice(3).toLowerCase();
    } else if (line.startsWith('<= ') && current && apdu !== undefined) {
      current.push({ apdu, response: line.slice(3).toLowerCase() });
      apdu = undefined;
    } else {
      throw new Error(`ledger-eth-device.apdus: unexpected line "${line}"`);
    }
  }
  return sections;
}

export function recordingNamed(name: string): Exchange[] {
  const found = loadDeviceRecordings().get(name);
  if (!found) throw new Error(`no recording named ${name}`);
  return found;
}

/**
 * Replays a recording strictly, like ledgerjs's openTransportReplayer: every APDU must equal the
 * recorded one, in order, and nothing may be sent past the end.
 */
export function replaying(log: Exchange[]): ApduTransport & { remaining(): number } {
  let i = 0;
  return {
    remaining: () => log.length - i,
    async exchange(apdu) {
      const got = Buffer.from(apdu).toString('hex');
      const step = log[i];
      if (!step) throw new Error(`APDU #${i + 1} sent past the end of the recording: ${got}`);
      if (step.apdu !== got)
        throw new Error(`APDU #${i + 1} differs:\n  sent     ${got}\n  recorded ${step.apdu}`);
      i += 1;
      return Buffer.from(step.response, 'hex');
    },
  };
}

/** Wraps a transport and records every exchange (hex). */
export function recording(inner: ApduTransport, log: Exchange[]): ApduTransport {
  return {
    async exchange(apdu) {
      const response = await inner.exchange(apdu);
      log.push({ apdu: Buffer.from(apdu).toString('hex'), response: Buffer.from(response).toString('hex') });
      return response;
    },
  };
}
