import type { Logger } from '../shared/logger.js';
import { AppError, errorMessage } from '../shared/errors.js';
import { ChainError, decodeCosmosReason } from './chain-error.js';
import type { SignedTx, TxResult, VipBackend, VipOp } from './types.js';

export interface SendOptions {
  logger: Logger;
  /** How long to poll for inclusion before re-broadcasting the same bytes. */
  confirmTimeoutMs: number;
  pollMs: number;
  /** How many times the identical signed bytes may be re-broadcast after a timeout. */
  rebroadcasts: number;
  /** Extra gas factor (raised after out-of-gas failures). */
  gasMultiplier?: number;
  /** Called once the tx is signed, before the first broadcast (e.g. to persist the hash). */
  onSigned?: (tx: SignedTx) => Promise<void> | void;
}

export const DEFAULT_SEND: Omit<SendOptions, 'logger'> = {
  confirmTimeoutMs: 30_000,
  pollMs: 500,
  rebroadcasts: 2,
};

/** Plans (simulates), signs, broadcasts and confirms one operation. */
export async function sendOp(backend: VipBackend, op: VipOp, options: SendOptions): Promise<TxResult> {
  const planned = await backend.plan(op, { gasMultiplier: options.gasMultiplier ?? 1 });
  const signed = await backend.sign(planned);
  await options.onSigned?.(signed);
  return confirmSigned(backend, signed, options);
}

/**
 * Broadcasts signed bytes and waits for inclusion. After a timeout the tx may still land, so the
 * hash is looked up again and only the *same* bytes are re-sent — the chain cannot run them twice.
 */
export async function confirmSigned(
  backend: VipBackend,
  tx: SignedTx,
  options: SendOptions,
): Promise<TxResult> {
  const { logger } = options;
  for (let attempt = 0; attempt <= options.rebroadcasts; attempt++) {
    const already = await safeLookup(backend, tx.hash, logger);
    if (already) return checkResult(already);
    let ack;
    try {
      ack = await backend.broadcast(tx);
    } catch (err) {
      // The request may have reached the node; polling below decides.
      logger.warn({ hash: tx.hash, err: errorMessage(err) }, 'broadcast request failed; checking by hash');
    }
    if (ack && !ack.accepted) {
      const landed = await safeLookup(backend, tx.hash, logger);
      if (landed) return checkResult(landed);
      throw new ChainError(`broadcast rejected (code ${ack.code}): ${ack.log}`, {
        chainCode: ack.code,
        txHash: tx.hash,
        ...reasonOf(ack.log),
      });
    }
    const result = await pollForResult(backend, tx.hash, options);
    if (result) return checkResult(result);
    logger.warn(
      { hash: tx.hash, attempt },
      'tx not confirmed in time; re-checking before re-sending the same bytes',
    );
  }
  throw new AppError('tx_unconfirmed', `tx ${tx.hash} not confirmed; check it on chain before retrying`, {
    retryable: true,
    details: { txHash: tx.hash },
  });
}

function reasonOf(log: string): { reason?: string } {
  const reason = decodeCosmosReason(log);
  return reason === undefined ? {} : { reason };
}

function checkResult(result: TxResult): TxResult {
  if (result.success) return result;
  throw new ChainError(`tx ${result.hash} failed (code ${result.code}): ${result.log}`, {
    chainCode: result.code,
    txHash: result.hash,
    ...reasonOf(result.log),
  });
}

async function safeLookup(backend: VipBackend, hash: string, logger: Logger): Promise<TxResult | undefined> {
  try {
    return await backend.lookup(hash);
  } catch (err) {
    logger.debug({ hash, err: errorMessage(err) }, 'tx lookup failed');
    return undefined;
  }
}

async function pollForResult(
  backend: VipBackend,
  hash: string,
  options: SendOptions,
): Promise<TxResult | undefined> {
  const deadline = Date.now() + options.confirmTimeoutMs;
  for (;;) {
    const result = await safeLookup(backend, hash, options.logger);
    if (result) return result;
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, options.pollMs));
  }
}
