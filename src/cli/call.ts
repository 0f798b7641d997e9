import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CACHE_MODES } from '../simulator/cache-mode.js';
import { DEFAULT_ERROR_RATE } from '../simulator/error-rate.js';
import type { CallControls, CallResult, Responder } from '../simulator/types.js';
import { callerCredentials, type CallerCredentials } from '../simulator/upstream/credentials.js';
import { defaultCacheFile, defaultLibraryDir } from '../paths.js';
import {
  addModelOptions,
  closeModels,
  MODEL_RESPONDERS,
  respondersFromFlags,
  startModels,
  type ModelFlags,
} from './model.js';
import { choiceFlag, intFlag, numberFlag, printJson, printLine } from './output.js';
import { ReportedFailure, UsageError } from '../terminal/errors.js';
import { addRuleOptions, ruleOptions, type RuleFlags } from './rule-flags.js';
import { addUpstreamOptions, upstreamSettings, type UpstreamFlags } from './upstream-flags.js';

interface CallFlags extends ModelFlags, RuleFlags, UpstreamFlags {
  responder: string;
  args?: string;
  argsFile?: string;
  library: string;
  cache: string;
  cacheMode: string;
  seed: string;
  errorRate: string;
  code?: string;
  example?: string;
  dynamic?: boolean;
  json?: boolean;
  upstreamHeader?: string[];
}

export function registerCall(program: Command): void {
  const call = program
    .command('call')
    .description(
      'simulate one tool call through Rule → Cache → Response (the --responder list: by default spec examples, then ' +
        'the synthesizer) → write-back; prints status, source, error kind and body',
    )
    .argument('<tool-id>', 'tool id (see `toolenv library list`)')
    .option('--args <json>', 'arguments as a JSON object (default {})')
    .option('--args-file <file>', 'read the arguments from a JSON file')
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option(
      '--cache <file|url>',
      'response cache: a SQLite file, or a postgres://user:pass@host/db URL shared by replicas',
      defaultCacheFile(),
    )
    .option('--cache-mode <mode>', `cache mode: ${CACHE_MODES.join(', ')}`, 'read-write')
    .option('--seed <n>', 'seed of error injection and synthesis', '0')
    .option('--error-rate <r>', 'probability of an injected error (0 turns injection off)', String(DEFAULT_ERROR_RATE))
    .option('--code <status>', 'force this status (as `Prefer: code=NNN`)')
    .option('--example <name>', 'answer this named spec example (as `Prefer: example=NAME`)')
    .option('--dynamic', 'skip the cache and the examples and synthesize (as `Prefer: dynamic=true`)')
    .option(
      '--responder <names>',
      'responders asked in order, comma-separated: example, synth, ' +
        `${MODEL_RESPONDERS.join(', ')} (synth is always the last fallback)`,
      'example,synth',
    )
    .option('--json', 'print one JSON object {tool, status, source, error, headers, body}');
  addUpstreamOptions(call).option(
    '--upstream-header <header...>',
    'with --upstream record|passthrough: your credentials for the real API, as NAME: VALUE (Authorization, or an ' +
      'API-key header the spec declares)',
  );
  addModelOptions(addRuleOptions(call)).action(async (toolId: string, flags: CallFlags, command: Command) => {
    const args = readArguments(flags);
    const rules = ruleOptions(flags);
    const seed = intFlag('--seed', flags.seed);
    const errorRate = numberFlag('--error-rate', flags.errorRate, { min: 0, max: 1 });
    const cacheMode = choiceFlag('--cache-mode', flags.cacheMode, CACHE_MODES);
    const upstream = await upstreamSettings(flags, command, cacheMode);
    if (flags.upstreamHeader !== undefined && upstream?.mode !== 'record' && upstream?.mode !== 'passthrough')
      throw new UsageError('--upstream-header needs --upstream record or passthrough');
    const credentials = upstreamHeaders(flags.upstreamHeader ?? []);
    const controls: CallControls = {};
    if (flags.code !== undefined) controls.code = intFlag('--code', flags.code, { min: 100, max: 599 });
    if (flags.example !== undefined) controls.example = flags.example;
    if (flags.dynamic) controls.dynamic = true;

    const [
      { LibraryStore },
      { openResponseCache },
      { examplesResponder },
      { librarySynthResponder },
      { createSimulator },
      { Upstream },
    ] = await Promise.all([
      import('../library/store.js'),
      import('../simulator/cache-open.js'),
      import('../simulator/examples.js'),
      import('../simulator/synth/responder.js'),
      import('../simulator/pipeline.js'),
      import('../simulator/upstream/upstream.js'),
    ]);
    const store = LibraryStore.open(flags.library);
    const cache = await openResponseCache(flags.cache, cacheMode);
    let responders: Responder[] = [];
    const real = upstream && new Upstream({ ...upstream, documents: (apiId) => store.apiDocument(apiId) });
    try {
      responders = await respondersFromFlags(flags.responder, flags, {
        example: examplesResponder,
        synth: librarySynthResponder(flags.library),
      });
      startModels(responders, cache, (line) => process.stderr.write(`${line}\n`));
      const simulator = createSimulator({ store, cache, responders, seed, errorRate, ...rules, upstream: real });
      const result = await simulator.call(toolId, args, { controls, credentials });
      if (flags.json) {
        printJson({
          tool: toolId,
          status: result.status,
          source: result.source,
          error: result.error ?? null,
          headers: result.headers,
          body: result.body,
        });
      } else {
        printLine(`status  ${result.status}`);
        printLine(`source  ${result.source}`);
        printLine(`error   ${result.error ?? '-'}`);
        for (const [name, value] of Object.entries(result.headers)) printLine(`${name}: ${value}`);
        printLine();
        printLine(typeof result.body === 'string' ? result.body : (JSON.stringify(result.body, null, 2) ?? ''));
      }
      const refused = refusal(result, controls);
      if (refused) {
        process.stderr.write(`toolenv: ${refused.line}\n`);
        throw new ReportedFailure(refused.exitCode);
      }
    } finally {
      await closeModels(responders);
      await real?.close();
      await cache?.close();
      store.close();
    }
  });
}

/**
 * A call the simulator refused rather than answered: the Rule layer's 4xx (unknown tool, invalid arguments) is the
 * caller's mistake (exit 2); no responder answering is the simulator's (exit 1). Injected errors and codes forced
 * with --code are answers the caller asked for (exit 0).
 */
function refusal(result: CallResult, controls: CallControls): { line: string; exitCode: number } | undefined {
  if (result.source !== 'rule' || result.error !== undefined || controls.code !== undefined || result.status < 400)
    return undefined;
  const body = result.body as { title?: unknown; detail?: unknown } | undefined;
  const line =
    `${result.status} ` +
    `${String(body?.title ?? 'refused')}${body?.detail === undefined ? '' : `: ${String(body.detail)}`}`;
  return { line, exitCode: result.status >= 500 ? 1 : 2 };
}

/** `--upstream-header NAME: VALUE…` as the caller's credentials. */
function upstreamHeaders(given: string[]): CallerCredentials {
  const headers = new Map<string, string>();
  for (const header of given) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(`--upstream-header must be NAME: VALUE, got ${JSON.stringify(header)}`);
    headers.set(header.slice(0, colon).trim().toLowerCase(), header.slice(colon + 1).trim());
  }
  return callerCredentials(
    (name) => headers.get(name),
    () => undefined,
    () => false,
  );
}

function readArguments(flags: CallFlags): unknown {
  if (flags.args !== undefined && flags.argsFile !== undefined)
    throw new UsageError('give --args or --args-file, not both');
  let text: string;
  let where: string;
  if (flags.argsFile !== undefined) {
    where = flags.argsFile;
    try {
      text = readFileSync(flags.argsFile, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read --args-file ${flags.argsFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
  } else {
    if (flags.args === undefined) return {};
    where = '--args';
    text = flags.args;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}
