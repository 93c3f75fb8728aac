import type { Command } from 'commander';

export function registerVip(program: Command): void {
  program.command('vip').description('(in progress)');
}
