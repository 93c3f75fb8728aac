import { requestOnce, unreachable, type TransportResponse } from '../node/transport.js';
import { AppError, InputError } from '../shared/errors.js';

/** L1 VIP package addresses and REST endpoints (docs/vip-contracts.md §3). */
export const L1_NETWORKS = {
  mainnet: {
    chainId: 'interwoven-1',
    rest: 'https://rest.initia.xyz',
    vipPackage: '0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789',
  },
  testnet: {
    chainId: 'initiation-2',
    rest: 'https://rest.testnet.initia.xyz',
    vipPackage: '0xe55cc823efb411bed5eed25aca5277229a54c62ab3769005f86cc44bc0c0e5ab',
  },
} as const;

export interface L1Stage {
  stage: bigint;
  stageStartTime?: bigint;
  stageEndTime?: bigint;
}

/** Reads `data.stage` of `<pkg>::vip::ModuleStore`; falls back to the first 8 bytes of raw_bytes. */
export async function readL1Stage(restUrl: string, vipPackage: string, timeoutMs = 10_000): Promise<L1Stage> {
  const tag = encodeURIComponent(`${vipPackage}::vip::ModuleStore`);
  const path = `/initia/move/v1/accounts/${vipPackage}/resources/by_struct_tag?struct_tag=${tag}`;
  let res: TransportResponse;
  try {
    res = await requestOnce({ name: 'L1 REST', baseUrl: restUrl, timeoutMs }, { method: 'GET', path });
  } catch (err) {
    throw unreachable('L1 REST', restUrl, err);
  }
  const body = parseJsonOr(res.text, {}) as {
    resource?: { move_resource?: string; raw_bytes?: string };
  };
  if (res.status !== 200 || !body.resource) {
    throw new AppError(
      'l1_stage_unavailable',
      `L1 VIP ModuleStore not found at ${vipPackage} (HTTP ${res.status})`,
    );
  }
  const data = (JSON.parse(body.resource.move_resource ?? '{}') as { data?: Record<string, unknown> }).data;
  if (typeof data?.stage === 'string' && /^\d+$/.test(data.stage)) {
    const { stage_start_time: start, stage_end_time: end } = data;
    return {
      stage: BigInt(data.stage),
      ...(typeof start === 'string' ? { stageStartTime: BigInt(start) } : {}),
      ...(typeof end === 'string' ? { stageEndTime: BigInt(end) } : {}),
    };
  }
  const raw = Buffer.from(body.resource.raw_bytes ?? '', 'base64');
  if (raw.length >= 8) return { stage: raw.readBigUInt64LE(0) };
  throw new AppError('l1_stage_unavailable', 'ModuleStore has no readable stage');
}

export function resolveL1(network: string | undefined, restUrl: string | undefined, pkg: string | undefined) {
  if (restUrl) {
    const base = network === 'testnet' ? L1_NETWORKS.testnet : L1_NETWORKS.mainnet;
    return { rest: restUrl, vipPackage: pkg ?? base.vipPackage };
  }
  if (network !== 'mainnet' && network !== 'testnet') {
    throw new InputError('missing_l1', 'give --network mainnet|testnet or --l1-rest URL');
  }
  const n = L1_NETWORKS[network];
  return { rest: n.rest, vipPackage: pkg ?? n.vipPackage };
}

function parseJsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
