import { AppError } from '../shared/errors.js';

/**
 * A transaction or simulation the chain refused. `reason` is the decoded contract error
 * (EVM custom error name, Move abort constant, Wasm message) when known.
 */
export class ChainError extends AppError {
  readonly chainCode: number;
  readonly reason: string | undefined;
  readonly txHash: string | undefined;

  constructor(
    message: string,
    info: { chainCode?: number; reason?: string; txHash?: string; retryable?: boolean; cause?: unknown },
  ) {
    super('chain_rejected', message, {
      retryable: info.retryable ?? false,
      cause: info.cause,
      details: { chainCode: info.chainCode, reason: info.reason, txHash: info.txHash },
    });
    this.name = 'ChainError';
    this.chainCode = info.chainCode ?? -1;
    this.reason = info.reason;
    this.txHash = info.txHash;
  }
}

/** Move abort codes of vip_score (docs/vip-contracts.md §1.2), decimal → constant name. */
export const MOVE_ABORTS: Record<number, string> = {
  65537: 'EUNAUTHORIZED',
  327681: 'EUNAUTHORIZED(publisher)',
  65538: 'EINSUFFICIENT_SCORE',
  65539: 'EINVALID_STAGE',
  65540: 'EDEPLOYER_ALREADY_ADDED',
  65541: 'EDEPLOYER_NOT_FOUND',
  65542: 'ENOT_MATCH_LENGTH',
  65543: 'EINVALID_SCORE',
  65544: 'EFINALIZED_STAGE',
  65545: 'ESTAGE_ZERO',
  524298: 'EALREADY_SET',
};

const WASM_MESSAGES = [
  'Address is not allowed',
  'Stage not found',
  'Stage finalized',
  'Stage can not be zero',
  'Insufficient score',
  'User score not found',
];

/**
 * Extracts the contract-level reason from a Cosmos raw_log: a Move abort code, a Move VM status
 * such as ARITHMETIC_ERROR (u64 overflow, no module code), or a Wasm message.
 */
export function decodeCosmosReason(log: string): string | undefined {
  const abort = /VM aborted: location=[0-9a-fx]+::vip_score, code=(\d+)/i.exec(log);
  if (abort?.[1] !== undefined) return MOVE_ABORTS[Number(abort[1])] ?? `abort ${abort[1]}`;
  const status =
    /VM failure: status ([A-Z_]+) of type \w+ with message [^,]*, location=[0-9a-fx]+::vip_score/i.exec(log);
  if (status?.[1] !== undefined) return status[1];
  return WASM_MESSAGES.find((m) => log.includes(m));
}
