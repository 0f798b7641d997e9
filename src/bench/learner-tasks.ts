import { readFileSync } from 'node:fs';
import type { EvalTask } from '../eval/map-references.js';
import { LibraryStore } from '../library/store.js';
import type { Tool } from '../library/tool.js';
import { hash32 } from '../simulator/synth/random.js';
import type { SynthTask } from '../tasks/synth/run.js';

/** A synthesized task ready to run, with the APIs its reference tools belong to. */
export interface PoolTask extends EvalTask {
  seed: number;
  apis: string[];
}

/** One seed's split of the pool: the evaluated tasks on APIs no training task touches. */
export interface Split {
  train: PoolTask[];
  /** The tasks evaluated: on held-out (test) APIs, or on the dev APIs when the split was asked for `dev`. */
  heldOut: PoolTask[];
  heldOutApis: number;
  /** Evaluated APIs some training task uses: 0 by construction, counted to show it. */
  heldOutApisSeenInTraining: number;
}

/** Which side a benchmark reads: `dev` while tuning it, `test` (the held-out APIs) once per change. */
export type SplitPart = 'dev' | 'test';

export interface SplitOptions {
  /** Share of APIs set aside for tuning, neither trained on nor tested (default 0: no dev side). */
  devShare?: number;
  /** The side whose tasks are returned as `heldOut` (default `test`). */
  on?: SplitPart;
}

/** Share of APIs a seed holds out. */
const HELD_OUT_SHARE = 0.5;

/** The synthesized pool, each task with its tools' APIs (an OpenAPI document's id; any other tool is its own). */
export function readPool(file: string, library: string): PoolTask[] {
  const store = LibraryStore.open(library);
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line, i) => {
        const task = JSON.parse(line) as SynthTask;
        const tools = task.reference_tools;
        return {
          task: { id: task.id, query: task.query, reference_tools: tools, answer: task.answer },
          line: i + 1,
          mapping: tools.map((id) => ({ reference: { id }, id, match: 'id' as const })),
          seed: task.seed,
          apis: [...new Set(tools.map((id) => apiOf(store.get(id), id)))],
        };
      });
  } finally {
    store.close();
  }
}

function apiOf(tool: Tool | undefined, id: string): string {
  return tool?.origin.format === 'openapi' ? tool.origin.api_id : id;
}

/**
 * APIs drawn by a hash of (seed, API): half are the test side, the next `devShare` the dev side, the rest train. The
 * first `heldOut` tasks whose APIs all lie on the side asked for are evaluated; every task touching neither held-out
 * side trains, in an order drawn from the seed; a task that mixes sides is left out. So no evaluated task shares an
 * API (let alone a tool) with training, and tuning on dev leaves the test side unseen.
 */
export function splitByApi(
  pool: readonly PoolTask[],
  seed: number,
  heldOut: number,
  { devShare = 0, on = 'test' }: SplitOptions = {},
): Split {
  const drawn = (key: string) => hash32(`${seed}\u0000${key}`);
  const sideOf = (api: string): SplitPart | 'train' => {
    const u = drawn(api) / 2 ** 32;
    return u < HELD_OUT_SHARE ? 'test' : u < HELD_OUT_SHARE + devShare ? 'dev' : 'train';
  };
  const heldOutTasks = pool.filter((t) => t.apis.every((api) => sideOf(api) === on)).slice(0, heldOut);
  const train = pool
    .filter((t) => t.apis.every((api) => sideOf(api) === 'train'))
    .sort((a, b) => drawn(a.task.id) - drawn(b.task.id));
  if (heldOutTasks.length < heldOut || train.length === 0) {
    throw new Error(
      `seed ${seed}: a pool of ${pool.length} tasks gave ${heldOutTasks.length} ${on} tasks (of ${heldOut} ` +
        `asked) and ${train.length} training tasks on disjoint APIs: synthesize a larger pool (--pool; with the ` +
        'language model, more --train-tasks)',
    );
  }
  const heldOutApis = new Set(heldOutTasks.flatMap((t) => t.apis));
  const trainApis = new Set(train.flatMap((t) => t.apis));
  const seen = [...heldOutApis].filter((api) => trainApis.has(api)).length;
  return { train, heldOut: heldOutTasks, heldOutApis: heldOutApis.size, heldOutApisSeenInTraining: seen };
}
