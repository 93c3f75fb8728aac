/**
 * TypeScript model of Initia's `vip_score::vip_score` Move module (docs/vip-contracts.md §1.2): same
 * checks in the same order, same abort codes. Addresses are `0x` + 64 lower-case hex.
 */

export class MoveAbort extends Error {
  constructor(readonly code: number) {
    super(`abort ${code}`);
  }
}

export const MOVE_CODES = {
  EUNAUTHORIZED: 0x10001,
  EUNAUTHORIZED_PUBLISHER: 0x50001,
  EINSUFFICIENT_SCORE: 0x10002,
  EINVALID_STAGE: 0x10003,
  EDEPLOYER_ALREADY_ADDED: 0x10004,
  EDEPLOYER_NOT_FOUND: 0x10005,
  ENOT_MATCH_LENGTH: 0x10006,
  EFINALIZED_STAGE: 0x10008,
  ESTAGE_ZERO: 0x10009,
  EALREADY_SET: 0x8000a,
} as const;

/**
 * u64 overflow is not a module abort: the Move VM stops the whole transaction with its own
 * ARITHMETIC_ERROR status (`+` on u64 is checked in Move), so no module code exists for it.
 * The message is the VM's ("Addition overflow"), shown in the tx's raw_log.
 */
export class MoveArithmeticError extends Error {
  constructor(message: 'Addition overflow' | 'Subtraction overflow' = 'Addition overflow') {
    super(message);
  }
}

const U64_MAX = (1n << 64n) - 1n;
const MAX_LIMIT = 1000;

export interface MoveStage {
  totalScore: bigint;
  isFinalized: boolean;
  scores: Map<string, bigint>;
}

export interface MoveEvent {
  typeTag: string;
  data: Record<string, unknown>;
}

/** Gas charged per entry, deterministic; roughly a table write vs. an update. */
export const MOVE_GAS = { perNewEntry: 8_000n, perRewrite: 4_000n, perCall: 5_000n } as const;

export class MoveVipScore {
  initStage = 0n;
  readonly deployers = new Map<string, boolean>();
  readonly stages = new Map<bigint, MoveStage>();
  /** Stable fake table handles, derived from the publisher address. */
  readonly scoresHandle: string;

  constructor(readonly publisher: string) {
    this.scoresHandle = `0x${publisher.slice(2, 58)}5c0e5c0e`;
  }

  private requireDeployer(signer: string): void {
    if (!this.deployers.get(signer)) throw new MoveAbort(MOVE_CODES.EUNAUTHORIZED);
  }

  private requirePublisher(signer: string): void {
    if (signer !== this.publisher) throw new MoveAbort(MOVE_CODES.EUNAUTHORIZED_PUBLISHER);
  }

  private openStage(stage: bigint): MoveStage {
    const s = this.stages.get(stage);
    if (!s) throw new MoveAbort(MOVE_CODES.EINVALID_STAGE);
    if (s.isFinalized) throw new MoveAbort(MOVE_CODES.EFINALIZED_STAGE);
    return s;
  }

  addDeployer(signer: string, deployer: string, commit: boolean): { gas: bigint; events: MoveEvent[] } {
    this.requirePublisher(signer);
    if (this.deployers.has(deployer)) throw new MoveAbort(MOVE_CODES.EDEPLOYER_ALREADY_ADDED);
    if (commit) this.deployers.set(deployer, true);
    return { gas: MOVE_GAS.perCall, events: [this.event('DeployerAddedEvent', { deployer })] };
  }

  removeDeployer(signer: string, deployer: string, commit: boolean): { gas: bigint; events: MoveEvent[] } {
    this.requirePublisher(signer);
    if (!this.deployers.has(deployer)) throw new MoveAbort(MOVE_CODES.EDEPLOYER_NOT_FOUND);
    if (commit) this.deployers.delete(deployer);
    return { gas: MOVE_GAS.perCall, events: [this.event('DeployerRemovedEvent', { deployer })] };
  }

  setInitStage(signer: string, stage: bigint, commit: boolean): { gas: bigint; events: MoveEvent[] } {
    if (stage === 0n) throw new MoveAbort(MOVE_CODES.ESTAGE_ZERO);
    this.requireDeployer(signer);
    if (this.initStage !== 0n) throw new MoveAbort(MOVE_CODES.EALREADY_SET);
    if (commit) {
      this.initStage = stage;
      this.stages.set(stage, { totalScore: 0n, isFinalized: false, scores: new Map() });
    }
    return { gas: MOVE_GAS.perCall, events: [] };
  }

  updateScores(
    signer: string,
    stage: bigint,
    addrs: string[],
    amounts: bigint[],
    commit: boolean,
  ): { gas: bigint; events: MoveEvent[] } {
    this.requireDeployer(signer);
    if (addrs.length !== amounts.length) throw new MoveAbort(MOVE_CODES.ENOT_MATCH_LENGTH);
    const s = this.openStage(stage);
    // Work on a shadow of the touched entries so a simulation (or an overflow) changes nothing.
    const shadow = new Map<string, bigint>();
    let total = s.totalScore;
    let gas = MOVE_GAS.perCall;
    const events: MoveEvent[] = [];
    addrs.forEach((addr, i) => {
      const amount = amounts[i] ?? 0n;
      const old = shadow.get(addr) ?? s.scores.get(addr);
      gas += old === undefined && !shadow.has(addr) ? MOVE_GAS.perNewEntry : MOVE_GAS.perRewrite;
      // The module computes `total - old + amount` on u64: the subtraction cannot underflow
      // (the total includes the old score), the addition aborts the tx past u64::MAX.
      total = total - (old ?? 0n) + amount;
      if (total > U64_MAX) throw new MoveArithmeticError('Addition overflow');
      shadow.set(addr, amount);
      events.push(
        this.event('UpdateScoreEvent', {
          account: addr,
          stage: String(stage),
          score: String(amount),
          total_score: String(total),
        }),
      );
    });
    if (commit) {
      for (const [addr, amount] of shadow) s.scores.set(addr, amount);
      s.totalScore = total;
    }
    return { gas, events };
  }

  finalize(signer: string, stage: bigint, commit: boolean): { gas: bigint; events: MoveEvent[] } {
    this.requireDeployer(signer);
    const s = this.stages.get(stage);
    if (!s) throw new MoveAbort(MOVE_CODES.EINVALID_STAGE);
    if (s.isFinalized) throw new MoveAbort(MOVE_CODES.EFINALIZED_STAGE);
    // `create_stage(stage + 1)`: the checked u64 addition aborts the tx at the top stage.
    if (stage === U64_MAX) throw new MoveArithmeticError('Addition overflow');
    // table::add of stage+1 would abort inside 0x1::table if it existed; unreachable in normal use.
    if (this.stages.has(stage + 1n)) throw new MoveAbort(0x64);
    if (commit) {
      s.isFinalized = true;
      this.stages.set(stage + 1n, { totalScore: 0n, isFinalized: false, scores: new Map() });
    }
    return { gas: MOVE_GAS.perCall, events: [this.event('FinalizedScoreEvent', { stage: String(stage) })] };
  }

  // --- views -------------------------------------------------------------------------------

  getScore(account: string, stage: bigint): bigint {
    return this.stages.get(stage)?.scores.get(account) ?? 0n;
  }

  getTotalScore(stage: bigint): bigint {
    return this.stages.get(stage)?.totalScore ?? 0n;
  }

  /** Descending by address bytes; `startAfter` is an exclusive upper bound. */
  getScores(
    stage: bigint,
    limit: number,
    startAfter: string | undefined,
  ): { stage: string; scores: { addr: string; score: string }[] } {
    const s = this.stages.get(stage);
    if (!s) return { stage: String(stage), scores: [] };
    const keys = [...s.scores.keys()]
      .sort()
      .reverse()
      .filter((k) => startAfter === undefined || k < startAfter);
    const rows = keys
      .slice(0, Math.min(limit, MAX_LIMIT))
      .map((addr) => ({ addr, score: String(s.scores.get(addr)) }));
    return { stage: String(stage), scores: rows };
  }

  /** The resource JSON a node renders for `<addr>::vip_score::ModuleStore`. */
  moduleStoreJson(): Record<string, unknown> {
    return {
      type: `${this.publisher}::vip_score::ModuleStore`,
      data: {
        init_stage: String(this.initStage),
        deployers: { data: [...this.deployers].map(([key, value]) => ({ key, value })) },
        scores: { handle: this.scoresHandle, length: String(this.stages.size) },
      },
    };
  }

  private event(name: string, data: Record<string, unknown>): MoveEvent {
    return { typeTag: `${this.publisher}::vip_score::${name}`, data };
  }
}
