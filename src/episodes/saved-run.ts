import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { schemaFile } from '../wire/schemas.js';
import { createAjv } from '../library/ajv.js';
import type { ScoredTrajectory } from '../rl/rewards.js';

/** A saved run that cannot be scored: the file and what is wrong with it. */
export class SavedRunError extends Error {}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The trajectory in a saved run, whichever way it was saved: an eval run file (the agent client's AgentRun, its
 * `trajectory` inside), `GET /v1/episodes/{id}` as JSON, or its `?format=jsonl` (the summary line, then a line per
 * step, then a line per turn). Only episodes that spoke text turns can be scored: the rewards read the turns.
 */
export function readSavedRun(file: string): ScoredTrajectory {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SavedRunError(
      `${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Not one JSON value: JSON lines, or neither.
    try {
      value = fromJsonl(text);
    } catch {
      throw new SavedRunError(`${file}: not JSON or JSON lines (${(error as Error).message})`);
    }
  }
  const trajectory = isRecord(value) && isRecord(value.trajectory) ? value.trajectory : value;
  if (!isRecord(trajectory)) throw new SavedRunError(`${file}: holds no trajectory object`);
  if (!Array.isArray(trajectory.turns)) {
    const why =
      isRecord(value) && typeof value.trajectory_error === 'string'
        ? `the run was saved without its trajectory (${value.trajectory_error})`
        : 'it has no "turns": only episodes that took text turns can be scored';
    throw new SavedRunError(`${file}: ${why}`);
  }
  if (!Array.isArray(trajectory.steps)) throw new SavedRunError(`${file}: the trajectory has no "steps"`);
  const check = validators();
  const parts: [string, unknown, ValidateFunction][] = [
    ['/turns', trajectory.turns, check.turns],
    ['/task', trajectory.task ?? {}, trajectory.task === undefined ? check.any : check.task],
    ['/reward', trajectory.reward ?? {}, check.reward],
    ['/state_checks', trajectory.state_checks ?? [], check.stateChecks],
  ];
  for (const [path, value, validate] of parts) {
    if (!validate(value)) throw new SavedRunError(`${file}: ${path}${describe(validate.errors)}`);
  }
  // r_state is read off the checks the server made of its world: a write task's run cannot be scored without them.
  const expected = isRecord(trajectory.task) && Array.isArray(trajectory.task.expect) ? trajectory.task.expect : [];
  const checks = Array.isArray(trajectory.state_checks) ? trajectory.state_checks.length : 0;
  if (expected.length !== checks)
    throw new SavedRunError(
      `${file}: the task has ${expected.length} expect assertions and the run ${checks} state_checks: ` +
        'r_state is scored from the checks the server made of the episode world',
    );
  return trajectory as unknown as ScoredTrajectory;
}

let compiled:
  | {
      turns: ValidateFunction;
      task: ValidateFunction;
      reward: ValidateFunction;
      stateChecks: ValidateFunction;
      any: ValidateFunction;
    }
  | undefined;

/**
 * The published schema's turn records, task and coefficients: what the rewards read of a saved run is checked as the
 * server wrote it.
 */
function validators(): NonNullable<typeof compiled> {
  if (compiled) return compiled;
  const ajv = createAjv();
  const schema = schemaFile('trajectory');
  ajv.addSchema(schema);
  const ref = (name: string) => ({ $ref: `${schema.$id}#/$defs/${name}` });
  compiled = {
    turns: ajv.compile({ type: 'array', items: ref('TurnRecord') }),
    task: ajv.compile(ref('EpisodeTask')),
    reward: ajv.compile(ref('RewardCoefficientOverrides')),
    stateChecks: ajv.compile({ type: 'array', items: ref('StateCheck') }),
    any: ajv.compile(true),
  };
  return compiled;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  return first ? `${first.instancePath} ${first.message ?? 'is invalid'}` : ' is invalid';
}

/** `?format=jsonl`: the summary, then step lines (`step`), then turn lines (`turn` and `text`). */
function fromJsonl(text: string): Json {
  const lines = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Json);
  const [summary, ...rest] = lines;
  if (!isRecord(summary)) throw new Error('the first line is not the summary object');
  return {
    ...summary,
    steps: rest.filter((l) => 'step' in l && !('text' in l)),
    turns: rest.filter((l) => 'text' in l && 'turn' in l),
  };
}
