import type { Command } from 'commander';

export function registerIngestCommands(program: Command): void {
  program.command('start').description('(in progress)');
}
