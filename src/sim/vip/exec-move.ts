import type { MsgExecute, MsgPublish } from '@initia/initia.proto/initia/move/v1/tx.js';
import { accountBytesFromString } from '../../shared/address.js';
import { MoveAbort, MoveArithmeticError, MoveVipScore, type MoveEvent } from './move-model.js';
import { TxReject } from './tx-decode.js';

export interface MsgOutcome {
  gas: bigint;
  events: { type: string; attributes: { key: string; value: string }[] }[];
}

/** `0x` + 64 hex of any address text the chain accepts (hex or bech32). */
export function moveAddress(text: string, prefix: string): string {
  try {
    return `0x${Buffer.from(accountBytesFromString(text, prefix)).toString('hex').padStart(64, '0')}`;
  } catch {
    throw new TxReject(7, `invalid address ${text}: invalid address`);
  }
}

class BcsReader {
  private pos = 0;
  constructor(private readonly bytes: Uint8Array) {}
  private take(n: number): Uint8Array {
    if (this.pos + n > this.bytes.length) throw new Error('unexpected end of input');
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  u64(): bigint {
    return Buffer.from(this.take(8)).readBigUInt64LE();
  }
  address(): string {
    return `0x${Buffer.from(this.take(32)).toString('hex')}`;
  }
  uleb(): number {
    let result = 0;
    let shift = 1;
    for (;;) {
      const b = this.take(1)[0] as number;
      result += (b & 0x7f) * shift;
      if ((b & 0x80) === 0) return result;
      shift *= 128;
    }
  }
  vector<T>(item: () => T): T[] {
    const n = this.uleb();
    return Array.from({ length: n }, item);
  }
  done(): void {
    if (this.pos !== this.bytes.length) throw new Error('trailing bytes');
  }
}

function args<T>(raw: Uint8Array[], readers: ((r: BcsReader) => unknown)[]): T {
  if (raw.length !== readers.length) {
    throw vmFailure(`NUMBER_OF_ARGUMENTS_MISMATCH: expected ${readers.length}, got ${raw.length}`);
  }
  try {
    return readers.map((read, i) => {
      const r = new BcsReader(raw[i] as Uint8Array);
      const v = read(r);
      r.done();
      return v;
    }) as T;
  } catch (err) {
    if (err instanceof TxReject) throw err;
    throw vmFailure(`FAILED_TO_DESERIALIZE_ARGUMENT: ${(err as Error).message}`);
  }
}

const u64 = (r: BcsReader) => r.u64();
const addr = (r: BcsReader) => r.address();

function toEvents(events: MoveEvent[]): MsgOutcome['events'] {
  return events.map((e) => ({
    type: 'move',
    attributes: [
      { key: 'type_tag', value: e.typeTag },
      { key: 'data', value: JSON.stringify(e.data) },
    ],
  }));
}

export function executeMove(
  modules: Map<string, MoveVipScore>,
  msg: MsgExecute,
  prefix: string,
  commit: boolean,
): MsgOutcome {
  const moduleAddr = moveAddress(msg.moduleAddress, prefix);
  const signer = moveAddress(msg.sender, prefix);
  const m = modules.get(moduleAddr);
  if (!m || msg.moduleName !== 'vip_score') {
    throw vmFailure(`LINKER_ERROR: module ${moduleAddr}::${msg.moduleName} not found`);
  }
  const location = `${moduleAddr.slice(2)}::vip_score`;
  try {
    const out = dispatch(m, signer, msg, commit);
    return { gas: out.gas, events: toEvents(out.events) };
  } catch (err) {
    if (err instanceof MoveAbort) {
      throw vmFailure(`VM aborted: location=${location}, code=${err.code}`);
    }
    if (err instanceof MoveArithmeticError) {
      // Initia's wording (test/fixtures/chain-samples/real-tx-decoder/common/failed.json). A real node
      // also appends `, function=<index>, code_offset=<pc>`: bytecode positions the model,
      // which runs no bytecode, cannot know, so they are left out rather than invented.
      throw vmFailure(
        `VM failure: status ARITHMETIC_ERROR of type Execution with message ${err.message}, location=${location}`,
      );
    }
    throw err;
  }
}

/**
 * Errors raised while the Move VM runs a message are not registered SDK errors in x/move, so
 * the node reports them as code 1 in the `undefined` codespace (as in the real failed tx of
 * test/fixtures/chain-samples/real-tx-decoder/common/failed.json).
 */
function vmFailure(log: string): TxReject {
  return new TxReject(1, log, 'undefined');
}

function dispatch(m: MoveVipScore, signer: string, msg: MsgExecute, commit: boolean) {
  switch (msg.functionName) {
    case 'add_deployer_script':
      return m.addDeployer(signer, args<[string]>(msg.args, [addr])[0], commit);
    case 'remove_deployer_script':
      return m.removeDeployer(signer, args<[string]>(msg.args, [addr])[0], commit);
    case 'set_init_stage':
      return m.setInitStage(signer, args<[bigint]>(msg.args, [u64])[0], commit);
    case 'update_score_script': {
      const [stage, addrs, amounts] = args<[bigint, string[], bigint[]]>(msg.args, [
        u64,
        (r) => r.vector(() => r.address()),
        (r) => r.vector(() => r.u64()),
      ]);
      return m.updateScores(signer, stage, addrs, amounts, commit);
    }
    case 'finalize_script':
      return m.finalize(signer, args<[bigint]>(msg.args, [u64])[0], commit);
    default:
      throw vmFailure(`FUNCTION_RESOLUTION_FAILURE: vip_score::${msg.functionName} is not an entry function`);
  }
}

const MOVE_MAGIC = [0xa1, 0x1c, 0xeb, 0x0b];

/**
 * Publishing: the model does not run Move bytecode. It checks the module magic and that the
 * bytes name `vip_score`, then runs the module's `init_module` (an empty ModuleStore).
 */
export function publishMove(
  modules: Map<string, MoveVipScore>,
  msg: MsgPublish,
  prefix: string,
  commit: boolean,
): MsgOutcome {
  const sender = moveAddress(msg.sender, prefix);
  for (const code of msg.codeBytes) {
    if (!MOVE_MAGIC.every((b, i) => code[i] === b)) {
      throw vmFailure('CODE_DESERIALIZATION_ERROR: bad module magic');
    }
  }
  const named = msg.codeBytes.some((c) => Buffer.from(c).includes('vip_score'));
  if (!named) throw vmFailure('the model only serves the vip_score module');
  if (commit && !modules.has(sender)) modules.set(sender, new MoveVipScore(sender));
  const size = msg.codeBytes.reduce((n, c) => n + c.length, 0);
  return {
    gas: 50_000n + BigInt(size) * 20n,
    events: [
      {
        type: 'move',
        attributes: [
          { key: 'type_tag', value: '0x1::code::ModulePublishedEvent' },
          {
            key: 'data',
            value: JSON.stringify({ module_id: `${sender}::vip_score`, upgrade_policy: msg.upgradePolicy }),
          },
        ],
      },
    ],
  };
}
