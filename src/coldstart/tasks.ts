import { loadTasks } from '../eval/load.js';
import { readTrainTasks, type TrainTask } from '../train/tasks.js';

/**
 * Tasks to generate from, in any format eval reads. The pipeline finds its own tools, so only the own format's
 * library ids are kept as reference tools and episode tools; other formats (ToolBench, BFCL, API-Bank, MCP) give
 * their id, query, expected answer and seed.
 */
export function readGenerationTasks(file: string): TrainTask[] {
  const loaded = loadTasks(file);
  if (loaded.format === 'own') return readTrainTasks(file);
  return loaded.tasks.map((t) => ({
    id: t.id,
    query: t.query,
    ...(t.answer !== undefined ? { answer: t.answer } : {}),
    ...(t.seed !== undefined ? { seed: t.seed } : {}),
  }));
}
