import type { ColdStartRun, RoundRecord } from './types.js';

/**
 * The quality filter (B.2): schema validity (every role answered in its schema, the server accepted every turn),
 * mode sequencing, DAG acyclicity, and complete reasoning in every round; and the trajectory must end in an
 * accepted answer, the task's expected one when it has one (a demonstration of a wrong answer teaches it). Answers the
 * reasons a trajectory is rejected, none for one that passes.
 */
export function qualityProblems(run: ColdStartRun): string[] {
  const problems: string[] = [];
  if (run.error) problems.push(`the run failed: ${run.error}`);
  for (const round of run.rounds)
    for (const why of round.invalid ?? []) problems.push(`round ${round.round}: schema: ${why}`);
  run.rejected_turns.forEach((reasons) => problems.push(`a turn the server rejected: ${reasons.join('; ')}`));
  problems.push(...sequencingProblems(run.rounds));
  for (const round of run.rounds) {
    if (round.dag_errors)
      problems.push(
        `round ${round.round}: the DAG failed validation after ${round.repairs} repair(s): ` +
          `${round.dag_errors.join('; ')}`,
      );
    if (!round.stalled && round.reasoning.trim() === '')
      problems.push(`round ${round.round}: the Planner gave no reasoning`);
    if (round.critic && round.critic.labels.reasoning.trim() === '')
      problems.push(`round ${round.round}: the Critic gave no reasoning`);
  }
  if (run.finish !== 'answer') problems.push(`the episode ended by ${run.finish}, not an accepted answer`);
  else if (run.solved === false) problems.push('wrong answer: the final answer misses the task’s expected answer');
  return problems;
}

/**
 * Mode sequencing: the first round explores (no tool is known before a search, and an answer before one is no
 * tool-use demonstration); execution only once tools were
 * retrieved; refine only after a round that did something; answer only as the last round.
 */
export function sequencingProblems(rounds: readonly RoundRecord[]): string[] {
  const problems: string[] = [];
  let searched = false;
  let acted = false;
  rounds.forEach((round, i) => {
    const at = `round ${round.round}`;
    if (round.mode === 'answer' && i !== rounds.length - 1) problems.push(`${at}: an answer round before the last`);
    // A demonstration that answers before any search teaches no tool use.
    if (i === 0 && round.mode !== 'exploration')
      problems.push(`${at}: the first round is ${round.mode}, not exploration`);
    if (round.mode === 'execution' && !searched) problems.push(`${at}: execution before any tool was retrieved`);
    if (round.mode === 'refine' && !acted) problems.push(`${at}: refine before any exploration or execution`);
    if (round.slots) searched = true;
    if (round.slots || round.dag) acted = true;
  });
  return problems;
}
