import type { Env } from '../shared/config.js';

export interface NodeFlags {
  rpcUrl?: string;
  restUrl?: string;
  jsonRpcUrl?: string;
  chainId?: string;
  vm?: string;
  databaseUrl?: string;
  dataDir?: string;
  port?: string;
  host?: string;
  startHeight?: string;
  until?: string;
  logLevel?: string;
  logFormat?: string;
}

/** Flags override the environment variable of the same meaning. */
export function flagsAsEnv(f: NodeFlags): Env {
  return {
    RPC_URL: f.rpcUrl,
    REST_URL: f.restUrl,
    JSON_RPC_URL: f.jsonRpcUrl,
    CHAIN_ID: f.chainId,
    VM_TYPE: f.vm,
    DATABASE_URL: f.databaseUrl,
    DATA_DIR: f.dataDir,
    PORT: f.port,
    HOST: f.host,
    START_HEIGHT: f.startHeight,
    UNTIL_HEIGHT: f.until,
    LOG_LEVEL: f.logLevel,
    LOG_FORMAT: f.logFormat,
  };
}
