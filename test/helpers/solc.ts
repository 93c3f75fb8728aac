import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/** Compiles a Solidity file under test/fixtures/contracts with the solc npm package (offline). */
export async function compileFixture(file: string): Promise<Record<string, CompiledContract>> {
  const content = await readFile(path.resolve('test', 'fixtures', 'contracts', file), 'utf8');
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { [file]: { content } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          evmVersion: 'cancun',
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return Object.fromEntries(
    Object.entries(output.contracts?.[file] ?? {}).map(([name, c]) => [
      name,
      { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex },
    ]),
  );
}
