import type { Command } from 'commander';
import { defaultLibraryDir } from '../../paths.js';
import { RETRIEVERS, type RetrieverName } from '../../retrieval/retrievers.js';
import { numberFlag } from '../output.js';
import { UsageError } from '../../terminal/errors.js';

/** Which model a dense retriever uses: flags of every search subcommand and of `serve`. */
export interface EmbedFlags {
  embedModel?: string;
  pooling?: string;
  queryPrefix?: string;
  denseWeight?: string;
  embedDtype?: string;
}

/** Flags shared by every search subcommand: where the library is and which model a dense retriever uses. */
export interface LibraryFlags extends EmbedFlags {
  library: string;
}

/** The embedding options the flags ask for, checked. */
export function embedOptions(flags: EmbedFlags): {
  embedModel?: string;
  pooling?: 'mean' | 'cls';
  queryPrefix?: string;
  denseWeight?: number;
  embedDtype?: 'fp32' | 'q8';
} {
  if (flags.pooling !== undefined && flags.pooling !== 'mean' && flags.pooling !== 'cls') {
    throw new UsageError(`--pooling must be mean or cls, got ${JSON.stringify(flags.pooling)}`);
  }
  if (flags.embedDtype !== undefined && flags.embedDtype !== 'fp32' && flags.embedDtype !== 'q8') {
    throw new UsageError(`--embed-dtype must be fp32 or q8, got ${JSON.stringify(flags.embedDtype)}`);
  }
  return {
    embedModel: flags.embedModel,
    embedDtype: flags.embedDtype,
    pooling: flags.pooling,
    queryPrefix: flags.queryPrefix,
    denseWeight:
      flags.denseWeight === undefined
        ? undefined
        : numberFlag('--dense-weight', flags.denseWeight, { min: 0, max: 100 }),
  };
}

export function libraryOptions(command: Command): Command {
  return embedFlagOptions(command.option('--library <dir>', 'library directory', defaultLibraryDir()));
}

export function embedFlagOptions(command: Command): Command {
  return command
    .option(
      '--embed-model <dir>',
      'local ONNX sentence-encoder directory (transformers.js layout: models/all-minilm-l6-v2 from `npm run ' +
        'setup:encoder`, or e.g. bge-large-en-v1.5) for --retriever dense; also used by hybrid',
    )
    .option(
      '--embed-dtype <fp32|q8>',
      'weights of the --embed-model: onnx/model.onnx (fp32) or onnx/model_quantized.onnx (int8, made by ' +
        '`npm run setup:encoder`; default: q8 where both exist)',
    )
    .option(
      '--pooling <mean|cls>',
      "pooling of the --embed-model (default: the model's 1_Pooling/config.json, else mean)",
    )
    .option(
      '--query-prefix <text>',
      'text put before each query for --embed-model (bge: "Represent this sentence for searching relevant passages: ")',
    )
    .option(
      '--dense-weight <w>',
      'weight of the dense list against BM25 in hybrid search (default: ' +
        '0.2 with the USE model, 1 with --embed-model; measured)',
    );
}

export function retrieverFlag(value: string): RetrieverName {
  if (!(RETRIEVERS as readonly string[]).includes(value))
    throw new UsageError(`--retriever must be one of ${RETRIEVERS.join(', ')}, got ${JSON.stringify(value)}`);
  return value as RetrieverName;
}
