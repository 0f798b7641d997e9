import { closeSync, openSync } from 'node:fs';
import type { Command } from 'commander';
import type { CacheMode } from '../simulator/cache-mode.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, UPSTREAM_MODES } from '../simulator/upstream/mode.js';
import type { UpstreamSettings } from '../simulator/upstream/upstream.js';
import { choiceFlag, numberFlag } from './output.js';
import { UsageError } from '../terminal/errors.js';

export interface UpstreamFlags {
  upstream?: string;
  upstreamMap?: string;
  upstreamTimeout?: string;
  upstreamLog?: string;
}

/** `--upstream` and its companions: record, replay or pass through calls to the real APIs. */
export function addUpstreamOptions(command: Command): Command {
  return command
    .option(
      '--upstream <mode>',
      'the real APIs: record (forward valid calls, store the answers as source real), replay (answer only recorded ' +
        'answers), passthrough (forward, store nothing)',
    )
    .option('--upstream-map <file>', "JSON object mapping API ids or globs to base URLs; overrides the specs' servers")
    .option(
      '--upstream-timeout <seconds>',
      'a forwarded call not answered within this is answered 504',
      String(DEFAULT_UPSTREAM_TIMEOUT_MS / 1000),
    )
    .option(
      '--upstream-log <file>',
      'append, per forwarded call, how the simulated answer differed from the real one (JSON Lines)',
    );
}

/** The checked flags, with the map read; undefined without `--upstream`. */
export async function upstreamSettings(
  flags: UpstreamFlags,
  command: Command,
  cacheMode: CacheMode,
): Promise<UpstreamSettings | undefined> {
  if (flags.upstream === undefined) {
    const stray = (['upstreamMap', 'upstreamLog', 'upstreamTimeout'] as const).find(
      (name) => command.getOptionValueSource(name) === 'cli',
    );
    if (stray)
      throw new UsageError(
        `--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --upstream record|replay|passthrough`,
      );
    return undefined;
  }
  const mode = choiceFlag('--upstream', flags.upstream, UPSTREAM_MODES);
  if (mode === 'record' && cacheMode !== 'read-write')
    throw new UsageError(
      `--upstream record stores the real answers in the cache: it needs --cache-mode read-write, got ${cacheMode}`,
    );
  if (mode === 'replay' && cacheMode === 'off')
    throw new UsageError(
      '--upstream replay answers from the recordings in the cache: ' +
        'it needs a cache (--cache-mode read-write or read-only)',
    );
  if (mode === 'replay' && flags.upstreamLog !== undefined)
    throw new UsageError('--upstream-log compares forwarded calls with the simulator; --upstream replay forwards none');
  const timeoutMs =
    numberFlag('--upstream-timeout', flags.upstreamTimeout ?? String(DEFAULT_UPSTREAM_TIMEOUT_MS / 1000), {
      min: 0.001,
      max: 3600,
    }) * 1000;
  let map;
  if (flags.upstreamMap !== undefined) {
    const { readUpstreamMap, UpstreamMapError } = await import('../simulator/upstream/base-urls.js');
    try {
      map = readUpstreamMap(flags.upstreamMap);
    } catch (error) {
      if (error instanceof UpstreamMapError) throw new UsageError(error.message);
      throw error;
    }
  }
  if (flags.upstreamLog !== undefined) {
    // Checked here so that an unwritable path is a usage error rather than a server that fails to start.
    try {
      closeSync(openSync(flags.upstreamLog, 'a'));
    } catch (error) {
      throw new UsageError(
        `cannot append to --upstream-log ${flags.upstreamLog}: ` +
          `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  return {
    mode,
    timeoutMs,
    ...(map ? { map } : {}),
    ...(flags.upstreamLog === undefined ? {} : { log: flags.upstreamLog }),
  };
}
