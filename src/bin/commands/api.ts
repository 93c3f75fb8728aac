import type { Command } from 'commander';

export function registerApi(program: Command): void {
  program.command('api').description('(in progress)');
}
