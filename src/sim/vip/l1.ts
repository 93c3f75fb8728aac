/**
 * The L1 side the VIP tool reads: `<pkg>::vip::ModuleStore`, whose `stage` advances with time
 * (docs/vip-contracts.md §3). Only the fields the tool reads are modelled faithfully.
 */
export interface L1VipOptions {
  /** `0x` + 64 hex package address. */
  packageAddress: string;
  /** Stage in progress at `genesisTimeMs`. */
  initialStage: bigint;
  stageIntervalSec: number;
  genesisTimeMs: number;
}

export interface L1Vip {
  packageAddress: string;
  stageAt(nowMs: number): { stage: bigint; start: bigint; end: bigint };
  resource(nowMs: number): { move_resource: string; raw_bytes: string; struct_tag: string; address: string };
}

function u64le(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return b;
}

export function createL1Vip(options: L1VipOptions, _now: () => number): L1Vip {
  const intervalMs = options.stageIntervalSec * 1000;
  const stageAt = (nowMs: number) => {
    const elapsed = Math.max(0, Math.floor((nowMs - options.genesisTimeMs) / intervalMs));
    const start = BigInt(Math.floor((options.genesisTimeMs + elapsed * intervalMs) / 1000));
    return {
      stage: options.initialStage + BigInt(elapsed),
      start,
      end: start + BigInt(options.stageIntervalSec),
    };
  };
  return {
    packageAddress: options.packageAddress,
    stageAt,
    resource(nowMs) {
      const { stage, start, end } = stageAt(nowMs);
      const structTag = `${options.packageAddress}::vip::ModuleStore`;
      const data = {
        stage: String(stage),
        stage_start_time: String(start),
        stage_end_time: String(end),
        stage_interval: String(options.stageIntervalSec),
        vesting_period: '26',
        minimum_lock_staking_period: '15724800',
        challenge_period: '604800',
        agent_data: { agent: '0x0', api_uri: '' },
      };
      return {
        address: options.packageAddress,
        struct_tag: structTag,
        move_resource: JSON.stringify({ type: structTag, data }),
        // stage, stage_start_time, stage_end_time are the first struct fields (u64 LE).
        raw_bytes: Buffer.concat([u64le(stage), u64le(start), u64le(end)]).toString('base64'),
      };
    },
  };
}
