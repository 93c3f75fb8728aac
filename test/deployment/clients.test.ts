import type { VmType } from '../../src/sim/types.js';
import {
  clientChainOf,
  clientChainSpec,
  HEAD,
  type ClientApi,
  type ClientChain,
} from '../api/clients/chain.js';
import { describeClientContracts } from '../api/clients/contracts.js';
import { openApiValidatorsOf, type OpenApiDocument } from '../api/harness.js';
import { startStoreIndependentDeployment, type TestDeployment } from '../helpers/deployment.js';

/**
 * The real clients unchanged against a deployment (docs/chains.md §2): the Celatone and
 * InterwovenKit contract tests of test/api/clients/, each VM's chain given to them as
 * `https://host/chains/{chain_id}`, the three chains indexed side by side by one deployment
 * (startStoreIndependentDeployment: PostgreSQL when TEST_DATABASE_URL is set, as the single-chain
 * run of these tests; else PGlite).
 */
const VMS: readonly VmType[] = ['move', 'wasm', 'evm'];

let started: Promise<TestDeployment> | undefined;
/** Chains whose tests are done: the deployment stops after the last one. */
let closed = 0;

function deployment(): Promise<TestDeployment> {
  started ??= (async () => {
    const deployment = await startStoreIndependentDeployment({
      chains: VMS.map((vm) => {
        const spec = clientChainSpec(vm);
        // Signatures are not checked by the indexer or the clients: the simulators skip real signing.
        const sim = { ...spec.sim, fastSignatures: true };
        return { vm, head: HEAD, chainId: spec.chainId, txsPerBlock: spec.txsPerBlock, sim };
      }),
    });
    await deployment.untilIndexed();
    return deployment;
  })();
  return started;
}

/** The chain's API as a client given `/chains/{chain_id}` as its indexer URL reaches it. */
async function chainOf(vm: VmType): Promise<ClientChain> {
  const d = await deployment();
  const chainId = clientChainSpec(vm).chainId;
  const base = `${d.url}/chains/${chainId}`;
  const send = (method: 'GET' | 'OPTIONS', url: string, headers: Record<string, string>) =>
    fetch(`${base}${url}`, { method, headers });
  const headersOf = (res: Response) => Object.fromEntries(res.headers.entries());
  const validators = openApiValidatorsOf(
    (await (await fetch(`${base}/swagger/doc.json`)).json()) as OpenApiDocument,
  );
  const api: ClientApi = {
    async get(url, headers = {}) {
      const res = await send('GET', url, headers);
      const body = await res.text();
      const json: unknown = res.headers.get('content-type')?.startsWith('application/json')
        ? JSON.parse(body)
        : undefined;
      if (res.status === 200 && json !== undefined) validators.check(url, json);
      return { status: res.status, headers: headersOf(res), body, json };
    },
    async request(method, url, headers) {
      const res = await send(method, url, headers);
      await res.arrayBuffer();
      return { status: res.status, headers: headersOf(res) };
    },
  };
  const { sim, urls } = d.sims.get(chainId)!;
  // The deployment closes the simulators; the last VM's close stops it (the describes run in turn).
  const indexed = { sim, urls, close: async () => undefined };
  return clientChainOf(vm, api, indexed, async () => {
    if (++closed === VMS.length) await (await deployment()).stop();
  });
}

for (const vm of VMS)
  describeClientContracts(vm, { name: ' under /chains/{chain_id}', chain: () => chainOf(vm) });
