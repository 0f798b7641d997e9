/**
 * The value prior (issue #49): for a field in context, what the vendors' own documented examples hold there — the
 * value classes (library/value-class.ts) with counts and a few sample values, the range of the numbers and how many
 * were whole. Mined from the library's API documents (mine.ts) into `prior.json` beside `tools.db`; the synthesizer
 * draws from it before its own name rules (synth/prior-values.ts).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ShapeNode } from './shapes.js';

export const PRIOR_FILE = 'prior.json';
export const PRIOR_VERSION = 1;

export interface PriorEntry {
  /** Values seen in this context. */
  n: number;
  /** Value class → how many of them. */
  classes: Record<string, number>;
  /** Value class → the first few distinct values of it, as text. */
  samples: Record<string, string[]>;
  /** The numbers' range, and how many were whole or fractional. */
  lo?: number;
  hi?: number;
  ints?: number;
  floats?: number;
}

export interface ValuePrior {
  version: number;
  /** The APIs whose documents were not read (a split's held-out side): a measurement on them must find them here. */
  left_out: string[];
  /** Operations (tool ids) of the APIs read whose examples, and all their responses refer to, were not read. */
  left_out_operations?: string[];
  apis: number;
  values: number;
  fields: Record<string, PriorEntry>;
  /**
   * The shape documented 2xx bodies show (shapes.ts): per API with two bodies or more, and per noun of an API's paths
   * (`shapeKey`) with one or more.
   */
  shapes?: Record<string, ShapeNode>;
}

/** Where a value sits: its API and category, its field's name key and its holder's (as the synthesizer names them). */
export interface PriorContext {
  api: string;
  category: string;
  parent: string;
  key: string;
}

/**
 * The contexts a value is counted under and looked up in, most specific first: the same field of the same API
 * (under the same holder, then under any), the same field under the same holder in the same category, anywhere
 * under that holder, in the category, anywhere.
 */
export function contextKeys({ api, category, parent, key }: PriorContext): string[] {
  return [
    `a\u0000${api}\u0000${parent}.${key}`,
    `a\u0000${api}\u0000${key}`,
    `c\u0000${category}\u0000${parent}.${key}`,
    `p\u0000${parent}.${key}`,
    `c\u0000${category}\u0000${key}`,
    `k\u0000${key}`,
  ];
}

/** The class the prior most often saw in a context (ties by name, so that it is stable). */
export function modalClass(entry: PriorEntry): string {
  let best: [string, number] = ['', -1];
  for (const [cls, count] of Object.entries(entry.classes))
    if (count > best[1] || (count === best[1] && cls < best[0])) best = [cls, count];
  return best[0];
}

/** A prior file (a library's is `join(dir, PRIOR_FILE)`); undefined when there is none. */
export function readPrior(file: string): ValuePrior | undefined {
  if (!existsSync(file)) return undefined;
  const prior = JSON.parse(readFileSync(file, 'utf8')) as ValuePrior;
  if (prior.version !== PRIOR_VERSION) throw new Error(`${file}: prior version ${prior.version}, not ${PRIOR_VERSION}`);
  return prior;
}

/**
 * Written beside the library (or to `file`) under a temporary name, then renamed: a reader never sees half a file.
 */
export function writePrior(dir: string, prior: ValuePrior, file = join(dir, PRIOR_FILE)): string {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(prior));
  renameSync(temporary, file);
  return file;
}
