/**
 * TypeScript model of Initia's CosmWasm `vip_score` contract (docs/vip-contracts.md §1.3), including
 * the re-finalize reset of stage+1, string (unvalidated) addresses and u64 wrap-around.
 */

/**
 * How the contract failed: `generic` = it returned a StdError::GenericErr; `panic` = it
 * unwrapped an error (Wasm abort); `parse` = cosmwasm-std could not decode the message JSON
 * (StdError::ParseErr, raised before any contract code runs).
 */
export type WasmFailureKind = 'generic' | 'panic' | 'parse';

export class WasmContractError extends Error {
  constructor(
    message: string,
    readonly kind: WasmFailureKind = 'generic',
  ) {
    super(message);
  }

  get panic(): boolean {
    return this.kind === 'panic';
  }
}

export interface WasmStage {
  stage: bigint;
  totalScore: bigint;
  isFinalized: boolean;
}

export interface WasmEvent {
  type: string;
  attributes: Record<string, string>;
}

/**
 * The contract keeps scores and totals as plain Rust `u64` (not `Uint64`), and a set computes
 * the new total as `((total as i128) + diff) as u64`: an `as` cast truncates to the low 64 bits
 * whatever the build profile, so a total past u64::MAX wraps silently and the tx succeeds (and
 * `stage + 1` in finalize wraps too: the crate sets no `overflow-checks`). Amounts themselves
 * can never exceed u64::MAX: the JSON decoder refuses them first (exec-wasm.ts).
 */
const U64 = (v: bigint) => BigInt.asUintN(64, v);

export const WASM_GAS = { perNewEntry: 9_000n, perRewrite: 5_000n, perCall: 10_000n } as const;

type Result = { gas: bigint; events: WasmEvent[] };

export class WasmVipScore {
  readonly initStage: bigint;
  readonly allowList = new Set<string>();
  readonly stages = new Map<bigint, WasmStage>();
  /** key = stage + '|' + address string exactly as sent. */
  readonly scores = new Map<string, bigint>();

  constructor(msg: { allow_list: string[]; init_stage: bigint }) {
    if (msg.init_stage === 0n) throw new WasmContractError('Stage can not be zero');
    this.initStage = msg.init_stage;
    this.stages.set(msg.init_stage, { stage: msg.init_stage, totalScore: 0n, isFinalized: false });
    for (const a of msg.allow_list) this.allowList.add(a);
  }

  static instantiateEvents(initStage: bigint): WasmEvent[] {
    return [{ type: 'wasm-create-stage', attributes: { stage: String(initStage) } }];
  }

  execute(sender: string, msg: Record<string, unknown>, commit: boolean): Result {
    if (!this.allowList.has(sender)) throw new WasmContractError('Address is not allowed');
    const [variant, body] = Object.entries(msg)[0] ?? [];
    const b = (body ?? {}) as Record<string, unknown>;
    switch (variant) {
      case 'update_scores':
        return this.updateScores(BigInt(b.stage as bigint), b.scores as [string, bigint][], commit);
      case 'update_score':
        return this.setOne(
          BigInt(b.stage as bigint),
          b.addr as string,
          BigInt(b.amount as bigint),
          commit,
          false,
        );
      case 'increase_score':
      case 'decrease_score':
        return this.adjust(
          variant === 'increase_score',
          BigInt(b.stage as bigint),
          b.addr as string,
          BigInt(b.amount as bigint),
          commit,
        );
      case 'finalize_stage':
        return this.finalize(BigInt(b.stage as bigint), commit);
      case 'add_allow_list':
        if (commit) this.allowList.add(b.addr as string);
        return {
          gas: WASM_GAS.perCall,
          events: [{ type: 'wasm-add-allow-list', attributes: { addr: String(b.addr) } }],
        };
      case 'remove_allow_list':
        if (commit) this.allowList.delete(b.addr as string);
        return {
          gas: WASM_GAS.perCall,
          events: [{ type: 'wasm-remove-allow-list', attributes: { addr: String(b.addr) } }],
        };
      default:
        throw new WasmContractError(
          `Error parsing into type vip_score::msgs::ExecuteMsg: unknown variant \`${variant}\``,
          'parse',
        );
    }
  }

  private writable(stage: bigint, panic: boolean): WasmStage {
    const kind = panic ? 'panic' : 'generic';
    const s = this.stages.get(stage);
    if (!s) throw new WasmContractError('Stage not found', kind);
    if (s.isFinalized) throw new WasmContractError('Stage finalized', kind);
    return s;
  }

  private setOne(stage: bigint, addr: string, amount: bigint, commit: boolean, panic: boolean): Result {
    const s = this.writable(stage, panic);
    const key = `${stage}|${addr}`;
    const old = this.scores.get(key);
    const total = U64(s.totalScore - (old ?? 0n) + amount);
    return this.store(s, stage, addr, old, amount, total, commit);
  }

  /**
   * increase_score / decrease_score: the stage checks return clean errors; increase adds with
   * plain u64 `+` (wraps: no overflow checks in the build); decrease unwraps its score checks,
   * so a missing score or one below the amount (or a total below it) panics.
   */
  private adjust(increase: boolean, stage: bigint, addr: string, amount: bigint, commit: boolean): Result {
    const s = this.writable(stage, false);
    const key = `${stage}|${addr}`;
    const old = this.scores.get(key);
    let score: bigint;
    let total: bigint;
    if (increase) {
      score = U64((old ?? 0n) + amount);
      total = U64(s.totalScore + amount);
    } else {
      if (old === undefined) throw new WasmContractError('User score not found', 'panic');
      if (amount > old || amount > s.totalScore) throw new WasmContractError('Insufficient score', 'panic');
      score = old - amount;
      total = s.totalScore - amount;
    }
    return this.store(s, stage, addr, old, score, total, commit);
  }

  /**
   * Writes one address's new score and the stage's new total (on commit) and reports the
   * update event; a first score for the address costs more gas than a rewrite.
   */
  private store(
    s: WasmStage,
    stage: bigint,
    addr: string,
    old: bigint | undefined,
    score: bigint,
    total: bigint,
    commit: boolean,
  ): Result {
    if (commit) {
      this.scores.set(`${stage}|${addr}`, score);
      s.totalScore = total;
    }
    return {
      gas: old === undefined ? WASM_GAS.perNewEntry : WASM_GAS.perRewrite,
      events: [
        {
          type: 'wasm-update-score',
          attributes: { addr, stage: String(stage), score: String(score), total_score: String(total) },
        },
      ],
    };
  }

  /** Per-entry `.unwrap()` in the contract: stage errors become panics. Empty list: no stage check. */
  private updateScores(stage: bigint, scores: [string, bigint][], commit: boolean): Result {
    if (!commit) {
      // Simulate on a copy of the stage's touched state.
      const shadow = new WasmVipScore({ allow_list: [], init_stage: 1n });
      const s = this.stages.get(stage);
      if (s) shadow.stages.set(stage, { ...s });
      for (const [addr] of scores) {
        const v = this.scores.get(`${stage}|${addr}`);
        if (v !== undefined) shadow.scores.set(`${stage}|${addr}`, v);
      }
      return shadow.applyScores(stage, scores);
    }
    return this.applyScores(stage, scores);
  }

  private applyScores(stage: bigint, scores: [string, bigint][]): Result {
    let gas = WASM_GAS.perCall;
    const events: WasmEvent[] = [];
    for (const [addr, amount] of scores) {
      const r = this.setOne(stage, addr, BigInt(amount), true, true);
      gas += r.gas;
      events.push(...r.events);
    }
    return { gas, events };
  }

  private finalize(stage: bigint, commit: boolean): Result {
    const s = this.stages.get(stage);
    if (!s) throw new WasmContractError('Stage not found');
    const next = U64(stage + 1n);
    if (next === 0n) throw new WasmContractError('Stage can not be zero');
    if (commit) {
      s.isFinalized = true;
      // The real contract *saves* a fresh StageInfo: a repeat finalize resets stage+1.
      this.stages.set(next, { stage: next, totalScore: 0n, isFinalized: false });
    }
    return {
      gas: WASM_GAS.perCall,
      events: [
        { type: 'wasm-finalize-stage', attributes: { stage: String(stage) } },
        { type: 'wasm-create-stage', attributes: { stage: String(next) } },
      ],
    };
  }

  query(msg: Record<string, unknown>): unknown {
    const [variant, body] = Object.entries(msg)[0] ?? [];
    const b = (body ?? {}) as Record<string, unknown>;
    switch (variant) {
      case 'get_score': {
        const stage = BigInt(b.stage as bigint);
        const v = this.scores.get(`${stage}|${String(b.addr)}`);
        if (v === undefined) throw new WasmContractError('u64 not found');
        return { stage, addr: b.addr, score: v };
      }
      case 'get_stage_info': {
        const s = this.stages.get(BigInt(b.stage as bigint));
        if (!s) throw new WasmContractError('vip_score::state::StageInfo not found');
        return { stage: s.stage, total_score: s.totalScore, is_finalized: s.isFinalized };
      }
      case 'get_scores': {
        const stage = BigInt(b.stage as bigint);
        const prefix = `${stage}|`;
        const after = b.start_after as string | null | undefined;
        const rows = [...this.scores.entries()]
          .filter(([k]) => k.startsWith(prefix))
          .map(([k, v]) => ({ stage, addr: k.slice(prefix.length), score: v }))
          .filter((r) => after == null || r.addr > after)
          .sort((x, y) => (x.addr < y.addr ? -1 : x.addr > y.addr ? 1 : 0))
          .slice(0, Number(b.limit ?? 10));
        return { scores: rows };
      }
      default:
        throw new WasmContractError(
          `Error parsing into type vip_score::msgs::QueryMsg: unknown variant \`${variant}\``,
        );
    }
  }

  /** Raw state, as `/raw/{key}` serves it (JSON-encoded Item values). */
  raw(key: string): string | undefined {
    return key === 'init_stage' ? String(this.initStage) : undefined;
  }
}
