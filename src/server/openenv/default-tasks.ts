import { GraphError, type Graph } from '../../graph/store.js';
import type { LibraryStore } from '../../library/store.js';
import { examplesResponder } from '../../simulator/examples.js';
import { createSimulator } from '../../simulator/pipeline.js';
import { synthResponder } from '../../simulator/synth/responder.js';
import { synthesizeTasks } from '../../tasks/synth/run.js';
import { episodeTask } from '../../train/tasks.js';
import type { EpisodeTask } from '../../wire/episodes.js';

/** What `toolenv tasks synth --count 64 --seed 0 --tools 1-2` would make of the served library: enough variety for a smoke run. */
export const DEFAULT_TASKS = { count: 64, seed: 0, minTools: 1, maxTools: 2 } as const;

/**
 * The tasks an OpenEnv reset without one plays when the server was given none (`--openenv-tasks`): synthesized once,
 * on the first reset that needs them, from the served library and its dependency graph, through a simulator of their
 * own (examples, then the synthesizer; no injected errors), so every task's expected answer was checked by running
 * it. Without a graph there are none, and a reset must name its task.
 */
export function synthesizedTasks(store: LibraryStore, graph: () => Graph | undefined): () => Promise<readonly EpisodeTask[]> {
  let tasks: Promise<readonly EpisodeTask[]> | undefined;
  const make = async (): Promise<readonly EpisodeTask[]> => {
    let served: Graph | undefined;
    try {
      served = graph();
    } catch (error) {
      // A graph of another version: the graph routes say so; here it only means no tasks to draw from.
      if (error instanceof GraphError) return [];
      throw error;
    }
    if (!served) return [];
    const simulator = createSimulator({ store, responders: [examplesResponder, synthResponder], seed: DEFAULT_TASKS.seed, errorRate: 0 });
    const report = await synthesizeTasks({ store, graph: served, simulator, ...DEFAULT_TASKS });
    return report.tasks.map(episodeTask);
  };
  return () => {
    tasks ??= make();
    // A failure is not kept: the next reset tries again.
    tasks.catch(() => (tasks = undefined));
    return tasks;
  };
}
