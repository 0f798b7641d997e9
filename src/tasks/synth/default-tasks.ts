import { GraphError, openGraph, type Graph } from '../../graph/store.js';
import { LibraryStore } from '../../library/store.js';
import { examplesResponder } from '../../simulator/examples.js';
import { createSimulator } from '../../simulator/pipeline.js';
import { synthResponder } from '../../simulator/synth/responder.js';
import { episodeTask, type EpisodeTask } from '../../wire/episodes.js';

/**
 * What `toolenv tasks synth --count 64 --seed 0 --tools 1-2` would make of the served library: enough variety for a
 * smoke run.
 */
export const DEFAULT_TASKS = { count: 64, seed: 0, minTools: 1, maxTools: 2 } as const;

/**
 * The tasks an OpenEnv reset without one plays when `serve` was given none (`--openenv-tasks`): synthesized once,
 * on the first reset that needs them, from the library and its dependency graph, through a simulator of their own
 * (examples, then the synthesizer; no injected errors), so every task's expected answer was checked by running it.
 * Without a graph (or with one of another version) there are none, and a reset must name its task.
 */
export function synthesizedTasks(libraryDir: string): () => Promise<readonly EpisodeTask[]> {
  let tasks: Promise<readonly EpisodeTask[]> | undefined;
  const make = async (): Promise<readonly EpisodeTask[]> => {
    let graph: Graph;
    try {
      graph = openGraph(libraryDir);
    } catch (error) {
      if (error instanceof GraphError) return [];
      throw error;
    }
    const store = LibraryStore.open(libraryDir);
    try {
      // Loaded on the first reset that needs it: serving starts without the synthesizer's code.
      const { synthesizeTasks } = await import('./run.js');
      const simulator = createSimulator({
        store,
        responders: [examplesResponder, synthResponder],
        seed: DEFAULT_TASKS.seed,
        errorRate: 0,
      });
      const report = await synthesizeTasks({ store, graph, simulator, ...DEFAULT_TASKS });
      return report.tasks.map(episodeTask);
    } finally {
      store.close();
      graph.close();
    }
  };
  return () => {
    tasks ??= make();
    // A failure is not kept: the next reset tries again.
    tasks.catch(() => (tasks = undefined));
    return tasks;
  };
}
