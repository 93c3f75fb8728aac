import type { Command } from 'commander';

export function registerSim(program: Command): void {
  program.command('sim').description('(in progress)');
}
