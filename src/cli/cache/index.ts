import type { Command } from 'commander';
import { registerCacheStats } from './stats.js';
import { registerCacheExport } from './export.js';
import { registerCacheImport } from './import.js';

export function registerCache(program: Command): void {
  const cache = program.command('cache').description('inspect, export and import the response cache');
  registerCacheStats(cache);
  registerCacheExport(cache);
  registerCacheImport(cache);
}
