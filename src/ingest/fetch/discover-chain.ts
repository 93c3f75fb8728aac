import { InputError } from '../../shared/errors.js';
import type { VmType } from '../../shared/config.js';
import type { CometClient } from '../../node/cometbft.js';
import type { RestClient } from '../../node/rest.js';

const VM_BY_APP: [RegExp, VmType][] = [
  [/evm/i, 'evm'],
  [/move/i, 'move'],
  [/wasm/i, 'wasm'],
];

/**
 * Chain id and VM type: configured values win, and are checked against what the node says.
 * The VM comes from the node's application name (minievm, minimove, miniwasm).
 */
export async function discoverChain(
  configured: { chainId: string | undefined; vmType: VmType | undefined },
  nodes: { comet: CometClient; rest: RestClient },
): Promise<{ chainId: string; vmType: VmType }> {
  const status = await nodes.comet.status();
  if (configured.chainId !== undefined && configured.chainId !== status.chainId) {
    throw new InputError(
      'chain_mismatch',
      `CHAIN_ID is ${configured.chainId} but the node serves ${status.chainId}`,
    );
  }
  let vmType = configured.vmType;
  if (vmType === undefined) {
    const info = (await nodes.rest.getJson('/cosmos/base/tendermint/v1beta1/node_info', {
      purpose: 'node_info',
    })) as { application_version?: { name?: string; app_name?: string } } | undefined;
    const app = `${info?.application_version?.app_name ?? ''} ${info?.application_version?.name ?? ''}`;
    vmType = VM_BY_APP.find(([re]) => re.test(app))?.[1];
    if (vmType === undefined) {
      throw new InputError(
        'vm_unknown',
        `cannot tell the VM from the node's application name "${app.trim()}"; set VM_TYPE`,
      );
    }
  }
  return { chainId: status.chainId, vmType };
}
