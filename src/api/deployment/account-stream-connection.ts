import type { ServerResponse } from 'node:http';
import { errorMessage } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { StreamEvent } from '../stream/subscriber.js';
import { encodePositions } from './account-stream-id.js';
import {
  ATTACH_TIMEOUT_MS,
  attachLeg,
  replayLeg,
  withinTime,
  type Leg,
  type LegContext,
} from './account-stream-leg.js';
import type { DeployedChain } from './directory.js';

/** What the stream says of a chain (docs/chains.md §4.4). */
export type ChainStreamState = 'live' | 'stalled' | 'unavailable';

interface ChainSlot {
  chain: DeployedChain;
  leg?: Leg | undefined;
  /** An attach under way (the first one may outlive the opening's wait). */
  attaching?: Promise<void> | undefined;
  state?: ChainStreamState;
  message?: string;
  /** Its leg is being dropped on purpose (the stream goes on without it). */
  detaching?: boolean;
}

export interface ConnectionContext {
  res: ServerResponse;
  chains: readonly DeployedChain[];
  /** The chains `chain_ids` named; undefined: every chain, those added later included. */
  only: ReadonlySet<string> | undefined;
  accountHex: string;
  /** The client's resume point per chain; a chain it does not name starts from now on. */
  resume: ReadonlyMap<string, number> | undefined;
  maxBufferBytes: number;
  maxReplay: number;
  heartbeatMs: number;
  /** How often each chain's state is checked and a missing chain attached again. */
  checkMs: number;
  logger: Logger;
}

/**
 * One account stream: a leg per chain on its own hub, writing `tx` events whose id carries every
 * chain's position (account-stream-id.ts). A chain that cannot be followed is reported in a
 * `chain` event and attached again once it can, resuming where the client is on it.
 */
export class AccountStreamConnection {
  private readonly slots: ChainSlot[];
  /** Each chain's position in the ids: what the client has from it (or its resume point). */
  private readonly positions = new Map<string, number>();
  private timers: NodeJS.Timeout[] = [];
  private opened = false;
  private ended = false;
  private readonly legContext: LegContext;
  private readonly closeListeners: (() => void)[] = [];

  constructor(private readonly ctx: ConnectionContext) {
    this.slots = ctx.chains.map((chain) => ({ chain }));
    for (const slot of this.slots) {
      const at = ctx.resume?.get(slot.chain.chainId);
      if (at !== undefined) this.positions.set(slot.chain.chainId, at);
    }
    this.legContext = {
      res: ctx.res,
      accountHex: ctx.accountHex,
      maxBufferBytes: ctx.maxBufferBytes,
      maxReplay: ctx.maxReplay,
      encode: (chainId, event) => this.txFrame(chainId, event),
      onSlow: () => ctx.logger.info({ account: ctx.accountHex }, 'account stream closed as slow'),
    };
    ctx.res.setMaxListeners(0);
    ctx.res.on('close', () => this.end());
  }

  get closed(): boolean {
    return this.ended;
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Attaches every chain it can within ATTACH_TIMEOUT_MS; the others are attached later. */
  async attachAll(): Promise<void> {
    await Promise.all(this.slots.map((slot) => this.attach(slot, true)));
  }

  /** Items the legs attached so far will replay. */
  backlogSize(): number {
    return this.slots.reduce((n, s) => n + (s.leg?.backlog.size ?? 0), 0);
  }

  /** The id a client resumes from once it has paged what the replay bound refused. */
  deliveredId(): string {
    const at = new Map(this.positions);
    for (const s of this.slots) if (s.leg) at.set(s.chain.chainId, s.leg.delivered);
    return encodePositions(at);
  }

  /** Writes the `chains` event (every chain's state, the id of the start), then replays and follows. */
  start(): void {
    this.opened = true;
    for (const slot of this.slots)
      if (slot.leg) this.positions.set(slot.chain.chainId, slot.leg.backlog.after);
    for (const slot of this.slots) slot.state = this.stateOf(slot);
    const chains = this.slots.map((s) => this.describe(s));
    this.write('chains', JSON.stringify({ chains }));
    for (const slot of this.slots) if (slot.leg) this.follow(slot.leg);
    const heartbeat = setInterval(() => this.keepAlive(), this.ctx.heartbeatMs);
    const check = setInterval(() => this.check(), this.ctx.checkMs);
    this.timers = [heartbeat, check];
    for (const t of this.timers) t.unref();
  }

  /** Ends the stream with a last `error` event (shutdown). */
  closeWith(code: number, message: string): void {
    if (this.ended) return;
    if (this.ctx.res.headersSent && !this.ctx.res.writableEnded)
      // The socket goes with it: a client must reconnect on a new connection, never on a
      // kept-alive one to a server that is stopping.
      this.ctx.res.end(`event: error\ndata: ${JSON.stringify({ code, message })}\n\n`, () =>
        this.ctx.res.socket?.destroy(),
      );
    this.end();
  }

  /** Drops every leg of a stream that never opened or has closed. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const t of this.timers) clearInterval(t);
    for (const slot of this.slots) slot.leg?.sub.abandon();
    for (const l of this.closeListeners) l();
  }

  /**
   * The deployment's chains changed (docs/chains.md §6). A chain removed leaves the stream (a
   * `chain` event `removed`, and the ids no longer name it); a restarted chain's leg is dropped and
   * attached again on its new run, from the client's position on it; a chain added joins a stream
   * that follows every chain as any late chain does, from when it is attached.
   */
  updateChains(chains: readonly DeployedChain[]): void {
    if (this.ended) return;
    const wanted = chains.filter((c) => !this.ctx.only || this.ctx.only.has(c.chainId));
    const next = new Map(wanted.map((c) => [c.chainId, c]));
    for (const slot of [...this.slots]) {
      const now = next.get(slot.chain.chainId);
      if (now === slot.chain) continue;
      if (slot.leg) this.dropLeg(slot);
      slot.attaching = undefined;
      if (now) {
        slot.chain = now;
        slot.message = 'restarting: its entry in the chains file changed';
        if (this.opened) this.report(slot);
        continue;
      }
      this.slots.splice(this.slots.indexOf(slot), 1);
      this.positions.delete(slot.chain.chainId);
      if (this.opened)
        this.write('chain', JSON.stringify({ chain_id: slot.chain.chainId, state: 'removed' }));
    }
    for (const chain of wanted)
      if (!this.slots.some((s) => s.chain.chainId === chain.chainId)) this.slots.push({ chain });
  }

  private async attach(slot: ChainSlot, opening: boolean): Promise<void> {
    if (slot.attaching) return;
    const { chain } = slot;
    const work = attachLeg(this.legContext, chain, this.positions.get(chain.chainId));
    const attaching = work.then(
      (leg) => {
        // The chain left the stream, or was restarted, while its leg was attaching.
        if (slot.chain !== chain || !this.slots.includes(slot)) return leg.sub.abandon();
        this.join(slot, leg, opening);
      },
      (err: unknown) => {
        if (slot.attaching === attaching) this.failed(slot, err);
      },
    );
    slot.attaching = attaching;
    try {
      await withinTime(attaching, ATTACH_TIMEOUT_MS, `chain ${chain.chainId}`);
    } catch (err) {
      // Still attaching: reported unavailable until it joins (or fails).
      slot.message = errorMessage(err);
    }
  }

  private join(slot: ChainSlot, leg: Leg, opening: boolean): void {
    slot.attaching = undefined;
    if (this.ended) return leg.sub.abandon();
    if (!this.opened && opening) {
      slot.leg = leg;
      return;
    }
    if (leg.backlog.size > this.ctx.maxReplay) {
      leg.sub.abandon();
      slot.message = `its replay is more than API_STREAM_MAX_REPLAY=${this.ctx.maxReplay} items`;
      return;
    }
    // Joining an open stream: its position enters the ids, then its replay runs.
    slot.leg = leg;
    this.positions.set(slot.chain.chainId, leg.backlog.after);
    if (this.opened) {
      this.report(slot);
      this.follow(leg);
    }
  }

  private failed(slot: ChainSlot, err: unknown): void {
    slot.attaching = undefined;
    slot.message = errorMessage(err);
    if (this.opened) this.report(slot);
  }

  private follow(leg: Leg): void {
    leg.sub.onClose(() => this.legClosed(leg));
    replayLeg(leg, this.ctx.maxReplay).then(
      (keptUp) => {
        if (!keptUp) this.closeWith(14, 'slow consumer: resume with Last-Event-ID');
      },
      (err: unknown) => {
        // A chain's database failed under its replay: that chain is dropped and attached again.
        this.ctx.logger.warn(
          { chain_id: leg.chainId, err: errorMessage(err) },
          'account stream replay failed',
        );
        const slot = this.slots.find((s) => s.leg === leg);
        if (slot) this.detach(slot, errorMessage(err));
      },
    );
  }

  /** A leg closed by its hub or as slow: the response is gone or going, so the stream ends. */
  private legClosed(leg: Leg): void {
    if (this.slots.some((s) => s.leg === leg && s.detaching)) return;
    this.end();
  }

  private detach(slot: ChainSlot, message: string): void {
    slot.message = message;
    this.dropLeg(slot);
    this.report(slot);
  }

  /** Abandons the slot's leg on purpose: the stream goes on without it. */
  private dropLeg(slot: ChainSlot): void {
    slot.detaching = true;
    slot.leg!.sub.abandon();
    slot.detaching = false;
    slot.leg = undefined;
  }

  private check(): void {
    if (this.ended) return;
    for (const slot of this.slots) {
      if (!slot.leg && !slot.attaching) void this.attach(slot, false);
      this.report(slot);
    }
  }

  /** A `chain` event when the chain's state changed since the stream last said it. */
  private report(slot: ChainSlot): void {
    const state = this.stateOf(slot);
    if (state === slot.state) return;
    slot.state = state;
    this.write('chain', JSON.stringify(this.describe(slot)));
  }

  private stateOf(slot: ChainSlot): ChainStreamState {
    if (!slot.leg) return 'unavailable';
    return slot.chain.condition().state === 'stalled' ? 'stalled' : 'live';
  }

  private describe(slot: ChainSlot) {
    const state = slot.state ?? this.stateOf(slot);
    const message =
      state === 'live'
        ? undefined
        : state === 'stalled'
          ? slot.chain.condition().lastError?.message
          : slot.message;
    return { chain_id: slot.chain.chainId, state, ...(message === undefined ? {} : { message }) };
  }

  private txFrame(chainId: string, event: StreamEvent): Buffer {
    this.positions.set(chainId, event.id);
    const data = `{"chain_id":${JSON.stringify(chainId)},"tx":${event.data}}`;
    return Buffer.from(`id: ${encodePositions(this.positions)}\nevent: tx\ndata: ${data}\n\n`);
  }

  private write(event: string, data: string): void {
    if (this.ended || this.ctx.res.writableEnded) return;
    this.ctx.res.write(`id: ${encodePositions(this.positions)}\nevent: ${event}\ndata: ${data}\n\n`);
  }

  private keepAlive(): void {
    if (!this.ended && !this.ctx.res.writableEnded) this.ctx.res.write(': keep-alive\n\n');
  }
}
