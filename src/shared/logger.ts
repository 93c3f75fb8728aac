import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };
export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  level: LevelWithSilent;
  format: LogFormat;
  name?: string;
}

/** Structured logger. `pretty` is for humans on a TTY; `json` for everything else. */
export function createLogger(options: LoggerOptions): Logger {
  const base = {
    level: options.level,
    ...(options.name === undefined ? {} : { name: options.name }),
    redact: {
      paths: ['mnemonic', 'privateKey', 'key', '*.mnemonic', '*.privateKey', 'password'],
      censor: '[redacted]',
    },
  };
  if (options.format === 'pretty') {
    return pino({
      ...base,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss.l' } },
    });
  }
  return pino(base);
}

export function defaultLogFormat(): LogFormat {
  return process.stdout.isTTY ? 'pretty' : 'json';
}

/** A logger that drops everything: for tests and library callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
