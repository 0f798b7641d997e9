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

/** One seed's split of the pool: held-out tasks on APIs no training task touches. */
export interface Split {
  train: PoolTask[];
  heldOut: PoolTask[];
  heldOutApis: number;
  /** Held-out APIs some training task uses: 0 by construction, counted to show it. */
  heldOutApisSeenInTraining: number;
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
 * Half the pool's APIs held out by a hash of (seed, API): the first `heldOut` tasks whose APIs are all held out are
 * the held-out set; every task touching none of them trains, in an order drawn from the seed; a task that mixes
 * both is left out. So no held-out task shares an API (let alone a tool) with training.
 */
export function splitByApi(pool: readonly PoolTask[], seed: number, heldOut: number): Split {
  const drawn = (key: string) => hash32(`${seed}\u0000${key}`);
  const held = (api: string) => drawn(api) / 2 ** 32 < HELD_OUT_SHARE;
  const heldOutTasks = pool.filter((t) => t.apis.every(held)).slice(0, heldOut);
  const train = pool.filter((t) => !t.apis.some(held)).sort((a, b) => drawn(a.task.id) - drawn(b.task.id));
  if (heldOutTasks.length < heldOut || train.length === 0) {
    throw new Error(
      `seed ${seed}: a pool of ${pool.length} tasks gave ${heldOutTasks.length} held-out tasks (of ${heldOut} ` +
        `asked) and ${train.length} training tasks on disjoint APIs: pass a larger --pool`,
    );
  }
  const heldOutApis = new Set(heldOutTasks.flatMap((t) => t.apis));
  const trainApis = new Set(train.flatMap((t) => t.apis));
  const seen = [...heldOutApis].filter((api) => trainApis.has(api)).length;
  return { train, heldOut: heldOutTasks, heldOutApis: heldOutApis.size, heldOutApisSeenInTraining: seen };
}
