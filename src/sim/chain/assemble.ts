import { event, eventsJsonBody, type SimEvent } from './events.js';
import type { PlannedTx, VmModel } from './plan.js';
import { buildTx, type BuiltTx } from './tx-build.js';
import { coinsText } from './tx-build.js';
import { grepAccounts, type Normaliser } from '../truth/accounts.js';
import type { Coin, MsgCallTruth, TxTruth } from '../types.js';

/** One generated tx: raw bytes, its ABCI result, its REST form and its ground truth. */
export interface GeneratedTx {
  base64: string;
  hash: string;
  /** Base64 of the signature (the REST join key). */
  signatureB64: string;
  /** The tx's events, parsed back from its result on each use (not kept as objects in the cache). */
  readonly events: SimEvent[];
  /** cmtjson of ExecTxResult as UTF-8. */
  resultBytes: Buffer;
  /** REST tx object (no "@type"), rendered on first use. */
  readonly restTxJson: string;
  code: number;
  codespace: string;
  log: string;
  /** Upper-case hex TxMsgData ("" on failure). */
  dataHex: string;
  /** Computed on first access: serving blocks does not need it. */
  readonly truth: TxTruth;
  gasWanted: number;
  gasUsed: number;
  fee: Coin[];
  /** The model's plan (absent for replayed txs). */
  plan?: PlannedTx;
}

export interface AssembleContext {
  chainId: string;
  prefix: string;
  fastSignatures: boolean;
  feeCollectorBech32: string;
  model: VmModel;
  normalise: Normaliser;
}

/** Encoded response bodies that are not empty (MsgRecvPacketResponse{result: SUCCESS}). */
const RESPONSE_VALUES: Record<string, Buffer> = {
  '/ibc.core.channel.v1.MsgRecvPacketResponse': Buffer.from([0x08, 0x02]),
};

const EMPTY_RESULT = Buffer.alloc(0);

/** TxMsgData{msg_responses: [Any{type_url, value}]}. */
function txMsgData(typeUrls: string[]): Buffer {
  const parts: Buffer[] = [];
  for (const url of typeUrls) {
    const urlBytes = Buffer.from(url);
    const value = RESPONSE_VALUES[url];
    const any = Buffer.concat([
      Buffer.from([0x0a, urlBytes.length]),
      urlBytes,
      ...(value ? [Buffer.from([0x12, value.length]), value] : []),
    ]);
    parts.push(Buffer.from([0x12, any.length]), any);
  }
  return Buffer.concat(parts);
}

/**
 * One tx and its ExecTxResult text. `tx.resultBytes` is left empty: the chain encodes the results
 * of a whole block at once and points each tx into that buffer.
 */
export function assembleTx(
  ctx: AssembleContext,
  plan: PlannedTx,
  height: number,
  index: number,
): { tx: GeneratedTx; resultJson: string } {
  const built = buildTx({
    msgs: plan.msgs,
    memo: plan.memo,
    fee: plan.fee,
    gasLimit: plan.gasLimit,
    signer: plan.signer,
    sequence: plan.sequence,
    signMode: plan.signMode,
    chainId: ctx.chainId,
    fastSignature: ctx.fastSignatures,
    ...(plan.presetSignature ? { presetSignature: plan.presetSignature } : {}),
  });
  const signer = plan.signer.bech32;
  const fee = coinsText(plan.fee);
  const signatureB64 = Buffer.from(built.signature).toString('base64');
  const events: SimEvent[] = [
    ...ctx.model.feeEvents(plan),
    event('coin_spent', [
      ['spender', signer],
      ['amount', fee],
    ]),
    event('coin_received', [
      ['receiver', ctx.feeCollectorBech32],
      ['amount', fee],
    ]),
    event('transfer', [
      ['recipient', ctx.feeCollectorBech32],
      ['sender', signer],
      ['amount', fee],
    ]),
    event('message', [['sender', signer]]),
    event('tx', [
      ['fee', fee],
      ['fee_payer', signer],
    ]),
    event('tx', [['acc_seq', `${signer}/${plan.sequence}`]]),
    event('tx', [['signature', signatureB64]]),
  ];
  // Rendered piecewise (msg_index appended while rendering); plain loops, as a callback would
  // capture these locals in the context every getter below keeps alive.
  const eventParts = [eventsJsonBody(events)];
  if (!plan.failure) {
    for (let i = 0; i < plan.msgEvents.length; i++)
      eventParts.push(eventsJsonBody(plan.msgEvents[i]!, String(i)));
    if (plan.postEvents) eventParts.push(eventsJsonBody(plan.postEvents));
  }
  let eventsText = '';
  for (const part of eventParts) if (part !== '') eventsText += (eventsText === '' ? '' : ',') + part;
  const data = plan.failure ? Buffer.alloc(0) : txMsgData(plan.msgResponseTypes);
  const code = plan.failure?.code ?? 0;
  const codespace = plan.failure?.codespace ?? '';
  const log = plan.failure?.log ?? '';
  let resultJson = '{';
  if (code !== 0) resultJson += `"code":${code},`;
  if (data.length > 0) resultJson += `"data":"${data.toString('base64')}",`;
  if (log !== '') resultJson += `"log":${JSON.stringify(log)},`;
  resultJson += `"gas_wanted":"${plan.gasLimit}","gas_used":"${plan.gasUsed}","events":[${eventsText}]`;
  if (codespace !== '') resultJson += `,"codespace":"${codespace}"`;
  resultJson += '}';
  const truthInput: TruthInput = {
    height,
    index,
    signer,
    msgTypes: [...new Set(plan.msgs.map((m) => m.typeUrl.slice(1)))],
    calls: plan.msgs.map((m) => ({ type: m.typeUrl.slice(1), ...m.target })),
    normalise: ctx.normalise,
  };
  // The cached block keeps the plan only for the EVM data keyed by it: drop what is rendered.
  plan.msgs = [];
  plan.msgEvents = [];
  delete plan.postEvents;
  const dataHex = data.toString('hex').toUpperCase();
  const tx = new AssembledTx(built, signatureB64, code, codespace, log, dataHex, plan, truthInput);
  return { tx, resultJson };
}

interface TruthInput {
  height: number;
  index: number;
  signer: string;
  msgTypes: string[];
  calls: MsgCallTruth[];
  normalise: Normaliser;
}

/**
 * A generated tx. A class rather than a literal with getters: its accessors live once on the
 * prototype and it keeps no closure context (which would pin the tx's rendering locals).
 */
class AssembledTx implements GeneratedTx {
  base64: string;
  hash: string;
  /** Set by the chain: a view into the block's results buffer. */
  resultBytes: Buffer = EMPTY_RESULT;
  gasWanted: number;
  gasUsed: number;
  fee: Coin[];
  readonly #built: BuiltTx;
  readonly #truthInput: TruthInput;
  #truth: TxTruth | undefined;

  constructor(
    built: BuiltTx,
    public signatureB64: string,
    public code: number,
    public codespace: string,
    public log: string,
    public dataHex: string,
    public plan: PlannedTx,
    truthInput: TruthInput,
  ) {
    this.base64 = built.base64;
    this.hash = built.hash;
    this.gasWanted = plan.gasLimit;
    this.gasUsed = plan.gasUsed;
    this.fee = plan.fee;
    this.#built = built;
    this.#truthInput = truthInput;
  }

  get events(): SimEvent[] {
    return eventsFromResult(this.resultBytes);
  }

  get restTxJson(): string {
    return this.#built.restJson;
  }

  get truth(): TxTruth {
    return (this.#truth ??= this.#makeTruth());
  }

  #makeTruth(): TxTruth {
    const t = this.#truthInput;
    const plan = this.plan;
    return {
      hash: this.hash,
      height: t.height,
      index: t.index,
      signer: t.signer,
      accounts: grepAccounts(eventsFromResult(this.resultBytes), t.signer, t.normalise),
      msgTypes: t.msgTypes,
      success: this.code === 0,
      code: this.code,
      gasWanted: String(plan.gasLimit),
      gasUsed: String(plan.gasUsed),
      fee: plan.fee,
      ...(plan.evmHash !== undefined ? { evmHash: plan.evmHash } : {}),
      ...(plan.nftMentions !== undefined ? { nftMentions: plan.nftMentions } : {}),
      calls: t.calls,
    };
  }
}

/** REST proto-JSON of events: defaults emitted, so every attribute has key, value and index. */
export function eventsRestJson(events: SimEvent[]): string {
  return (
    '[' +
    events
      .map(
        (e) =>
          `{"type":${JSON.stringify(e.type)},"attributes":[` +
          e.attributes
            .map((a) => `{"key":${JSON.stringify(a.key)},"value":${JSON.stringify(a.value)},"index":true}`)
            .join(',') +
          ']}',
      )
      .join(',') +
    ']'
  );
}

/** Events back from a cmtjson ExecTxResult (omitted values are empty strings). */
export function eventsFromResult(resultBytes: Buffer): SimEvent[] {
  const parsed = JSON.parse(resultBytes.toString('utf8')) as {
    events?: Array<{ type: string; attributes?: Array<{ key: string; value?: string }> }>;
  };
  return (parsed.events ?? []).map((e) => ({
    type: e.type,
    attributes: (e.attributes ?? []).map((a) => ({ key: a.key, value: a.value ?? '' })),
  }));
}
