import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRun } from '../agent/types.js';
import { shortHash, slug } from '../library/ids.js';
import type { EvalReport } from './report.js';
import { renderMarkdown } from './report-md.js';
import type { TaskScore } from './score.js';

/**
 * Where one task-run's trajectory goes: `DIR/trajectories/AGENT/TASK.runN.json`. A task id that is not a safe file
 * name (slashes, spaces) is slugged, with a hash of the id so that two ids never share a file.
 */
export function trajectoryFile(dir: string, score: Pick<TaskScore, 'agent' | 'task_id' | 'run'>): string {
  const safe = slug(score.task_id).slice(0, 100);
  const name = safe === score.task_id ? safe : `${safe || 'task'}-${shortHash(score.task_id)}`;
  return join(dir, 'trajectories', score.agent, `${name}.run${score.run}.json`);
}

/** The AgentRun as the agent client returned it; a run that threw leaves its score and the error instead. */
export function writeTrajectory(dir: string, run: AgentRun | undefined, score: TaskScore): string {
  const file = trajectoryFile(dir, score);
  mkdirSync(join(file, '..'), { recursive: true });
  const record = run ?? { task_id: score.task_id, agent: score.agent, finish: 'error', error: score.error, score };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

/** report.json and report.md in `dir`. */
export function writeReport(dir: string, report: EvalReport): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'report.json');
  const markdown = join(dir, 'report.md');
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdown, renderMarkdown(report));
  return { json, markdown };
}
