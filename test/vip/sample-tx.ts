import type { Any } from '@initia/initia.proto/google/protobuf/any.js';
import type { UnsignedCosmosTx } from '../../src/vip/cosmos/tx.js';

/**
 * A one-message eth_secp256k1 tx with the gas, fee and memo of the initia.js 1.1.0 signed
 * samples (chain-samples/generated/initia.js-1.1.0), so a test can rebuild their exact bytes.
 */
export function sampleTx(
  message: Any,
  publicKey: Uint8Array,
  account: Pick<UnsignedCosmosTx, 'chainId' | 'accountNumber' | 'sequence'>,
): UnsignedCosmosTx {
  return {
    messages: [message],
    memo: '',
    gasLimit: 200_000n,
    fee: [{ denom: 'umin', amount: '3000' }],
    ...account,
    publicKey,
    algo: 'eth_secp256k1',
  };
}
