import { AppError } from '../../shared/errors.js';
import { createProtoRegistry } from '../../shared/proto/registry.js';
import { createAccountNormaliser, extractAccounts, extractEvmReceiptAccounts } from './accounts.js';
import { sumFees } from './fees.js';
import { jsonbText } from '../../wire/json-text.js';
import { createTxDecoder } from './tx.js';
import { renderTxResponseJson } from '../../wire/tx.js';
import type { TxDecoder } from './decoded-tx.js';
import type { MessageSchema } from '../../shared/proto/schema.js';

/**
 * The decode layer behind the interface the pipeline uses (one registry per process).
 * `protoExtensions`: message schemas added to the registry (tests: a later release's types).
 */
export function createIngestDecoder(options: {
  prefix: string;
  protoExtensions?: readonly MessageSchema[] | undefined;
}): TxDecoder {
  const registry = createProtoRegistry(options.protoExtensions);
  const decoder = createTxDecoder({ registry, prefix: options.prefix });
  // The same addresses recur in every event and tx; bech32 work dominates extraction otherwise.
  const normalise = createAccountNormaliser(options.prefix);
  return {
    decode(txBase64) {
      const d = decoder.decodeTx(txBase64);
      // A key of a type no rule here derives: the block's events name the signer (prepareBlock).
      if (d.signer === undefined && d.signerSource !== 'unknown_key') {
        throw new AppError('tx_no_signer', `tx ${d.hash} has no signer_infos and no fee payer`);
      }
      return {
        hash: d.hash,
        restTxJson: d.restTxJson,
        // A fresh array per decode (messageTypes), so no copy is needed.
        msgTypes: d.msgTypes,
        // Unknown wire fields are as bad as unknown types: the local rendering would be incomplete.
        unknownTypes: [...d.unknownTypes, ...d.unknownFields],
        bytes: d.bytes,
        undecoded: false,
        signer: d.signer,
        signerKeyUnknown: d.signerSource === 'unknown_key',
        fee: d.fee,
        signaturesKey: d.signatureKey,
      };
    },
    accounts: (events, signer) => extractAccounts(events, signer, { prefix: options.prefix, normalise }),
    renderTxJson: (input) =>
      renderTxResponseJson({
        hash: input.hash,
        height: input.height,
        result: {
          code: input.result.code,
          codespace: input.result.codespace,
          data: input.result.data,
          log: input.result.log,
          info: input.result.info,
          gas_wanted: input.result.gasWanted,
          gas_used: input.result.gasUsed,
          events: input.result.events,
        },
        restTxJson: input.restTxJson,
        blockTime: input.timestamp,
      }),
    renderRestTxJson: (restTx) => jsonbText(restTx),
    evmReceiptAccounts: (receipt) => extractEvmReceiptAccounts(receipt as never, options.prefix),
    sumFees: (fees) => sumFees(fees),
  };
}
