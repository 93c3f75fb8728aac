import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { AppError } from '../../shared/errors.js';

/**
 * Compiles contracts/VipScore.sol with the solc npm package (no network: never loadRemoteVersion).
 * Shanghai keeps the bytecode to PUSH0-level opcodes, which MiniEVM is known to accept.
 */
export const VIP_SCORE_COMPILER_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'shanghai',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.methodIdentifiers'] } },
} as const;

export interface VipScoreArtifact {
  contractName: 'VipScore';
  sourceName: 'contracts/VipScore.sol';
  compiler: { name: 'solc'; version: string; settings: typeof VIP_SCORE_COMPILER_SETTINGS };
  abi: unknown[];
  bytecode: `0x${string}`;
  methodIdentifiers: Record<string, string>;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<
      string,
      { abi: unknown[]; evm: { bytecode: { object: string }; methodIdentifiers: Record<string, string> } }
    >
  >;
}

interface SolcModule {
  version(): string;
  compile(input: string): string;
}

export async function compileVipScore(sourcePath: string): Promise<VipScoreArtifact> {
  const source = await readFile(sourcePath, 'utf8');
  const solc = createRequire(import.meta.url)('solc') as SolcModule;
  const input = {
    language: 'Solidity',
    sources: { 'contracts/VipScore.sol': { content: source } },
    settings: VIP_SCORE_COMPILER_SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new AppError('solc_failed', errors.map((e) => e.formattedMessage).join('\n'));
  }
  const contract = output.contracts?.['contracts/VipScore.sol']?.['VipScore'];
  if (!contract) throw new AppError('solc_failed', 'VipScore missing from solc output');
  return {
    contractName: 'VipScore',
    sourceName: 'contracts/VipScore.sol',
    compiler: { name: 'solc', version: solc.version(), settings: VIP_SCORE_COMPILER_SETTINGS },
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    methodIdentifiers: contract.evm.methodIdentifiers,
  };
}
