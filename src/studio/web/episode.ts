import { api, ApiError, postJson } from './api.js';
import { planDag } from './dag.js';
import { add, badge, details, h, jsonBlock, link, mount, num, section, table, type Child } from './dom.js';
import type {
  Json,
  Rewards,
  StateAssertion,
  StateCheck,
  ToolCallObservation,
  Trajectory,
  TurnRecord,
} from './types.js';

/** A live episode (`GET /v1/episodes/{id}` and its rewards), refreshed while it runs; a form sends it a raw turn. */
export async function liveEpisodeView(view: HTMLElement, id: string): Promise<() => void> {
  const path = `/v1/episodes/${encodeURIComponent(id)}`;
  const body = h('div');
  let timer: number | undefined;
  let shown = '';
  const load = async () => {
    const trajectory = await api<Trajectory>(path);
    const rewards = await api<Rewards>(`${path}/rewards`).catch((error: unknown) =>
      error instanceof ApiError ? error.message : Promise.reject(error),
    );
    const key = JSON.stringify([
      trajectory.counts,
      trajectory.done,
      typeof rewards === 'string' ? rewards : rewards.r_step,
    ]);
    if (key !== shown) {
      shown = key;
      mount(body, episodeParts(trajectory, rewards, trajectory.done ? null : turnForm(path, load)));
    }
    if (trajectory.done && timer !== undefined) window.clearInterval(timer);
  };
  await load();
  view.append(h('h1', null, 'Episode ', h('code', null, id)), h('p', null, link('/episodes', '← all episodes')), body);
  timer = window.setInterval(() => void load().catch(() => window.clearInterval(timer)), 2000);
  return () => window.clearInterval(timer);
}

/** An episode a run kept (eval's trajectory files, train's trajectories/*.jsonl), with its rewards. */
export async function savedEpisodeView(view: HTMLElement, run: string, id: string): Promise<void> {
  const saved = await api<{ trajectory: Trajectory; rewards: Rewards; rescored: boolean; record?: Json }>(
    `/v1/runs/${encodeURIComponent(run)}/episodes/${encodeURIComponent(id)}`,
  );
  add(
    view,
    h('h1', null, 'Episode ', h('code', null, id)),
    h('p', null, link(`/run/${encodeURIComponent(run)}`, `← run ${run}`)),
    saved.rescored
      ? h(
          'p',
          { class: 'muted' },
          'Rewards scored again here from the saved trajectory (no judge); the run recorded ',
          recordLine(saved.record),
          '.',
        )
      : null,
    episodeParts(saved.trajectory, saved.rewards, null),
  );
}

function recordLine(record: Json | undefined): string {
  if (!record) return 'no totals';
  return ['r_step', 'r_phase', 'r_traj', 'r_ans'].map((k) => `${k} ${num(record[k] as number | null)}`).join(', ');
}

function turnForm(path: string, reload: () => Promise<void>): HTMLElement {
  const text = h('textarea', {
    name: 'text',
    rows: 6,
    placeholder: '<think>…</think>\n<plan>…</plan>\n<tool_call>…</tool_call>',
  });
  const status = h('span', { class: 'muted' });
  return section(
    'Send a turn',
    h(
      'form',
      {
        class: 'turn-form',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          status.textContent = 'sending…';
          try {
            await postJson(`${path}/turns`, { text: text.value });
            text.value = '';
            status.textContent = '';
            await reload();
          } catch (error) {
            status.textContent = (error as Error).message;
          }
        },
      },
      h('p', { class: 'muted' }, 'The raw model message, as a trainer would send it to POST /v1/episodes/{id}/turns.'),
      text,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Send'), status),
    ),
  );
}

function episodeParts(trajectory: Trajectory, rewards: Rewards | string, form: HTMLElement | null): Child[] {
  const c = trajectory.counts;
  const head = section(
    'Task',
    h('p', { class: 'query' }, trajectory.task?.query ?? h('span', { class: 'muted' }, 'no task')),
    h(
      'p',
      null,
      badge(trajectory.protocol, 'info'),
      ' ',
      trajectory.done
        ? badge(`done: ${trajectory.finish ?? 'ended'}`, trajectory.finish === 'answer' ? 'ok' : 'bad')
        : badge('live', 'live'),
      ` seed ${trajectory.seed} · ${c.turns} turns · ${c.searches} searches · ${c.calls} calls (${c.failed_calls} ` +
        `failed, ${c.injected_errors} injected) · started ${new Date(trajectory.created_at).toLocaleString()}`,
    ),
    trajectory.task?.reference_tools?.length
      ? h(
          'p',
          null,
          'Reference tools: ',
          trajectory.task.reference_tools.map((t) => [link(`/tool/${encodeURIComponent(t)}`, t), ' ']),
        )
      : null,
    trajectory.task?.answer !== undefined
      ? h('p', null, 'Expected answer contains: ', h('code', null, JSON.stringify(trajectory.task.answer)))
      : null,
    trajectory.answer !== undefined ? h('p', null, 'Answer: ', h('q', null, trajectory.answer)) : null,
    trajectory.task?.expect ? stateTable(trajectory.task.expect, trajectory.state_checks) : null,
  );
  return [
    head,
    typeof rewards === 'string' ? section('Rewards', h('p', { class: 'error' }, rewards)) : rewardPanel(rewards),
    form,
    h('h2', null, 'Turns'),
    ...trajectory.turns.map((turn) => turnCard(turn, trajectory, typeof rewards === 'string' ? undefined : rewards)),
  ];
}

function rewardPanel(r: Rewards): HTMLElement {
  const k = r.coefficients;
  const stepSum = r.steps.reduce((sum, s) => sum + s.r_base + s.r_plan, 0);
  const phaseMean = r.phases.length === 0 ? 0 : r.phases.reduce((sum, p) => sum + p.score, 0) / r.phases.length;
  const big = (name: string, value: number | null, why: Child) =>
    h(
      'div',
      { class: 'reward' },
      h('div', { class: 'reward-name' }, name),
      h('div', { class: 'reward-value' }, num(value)),
      h('div', { class: 'reward-why' }, why),
    );
  return section(
    'Rewards',
    r.flagged ? h('p', { class: 'error' }, `Flagged: ${r.flagged}`) : null,
    h(
      'div',
      { class: 'rewards' },
      big('R_step', r.r_step, r.r_step_note ?? `(Σ r_base + r_plan = ${stepSum}) ÷ (2 × ${r.steps.length} turns)`),
      big(
        'R_phase',
        r.r_phase,
        r.gate === null
          ? 'not scored: R_ans flagged'
          : `gate ${num(r.gate)} × mean of ${r.phases.length} phase scores ${num(phaseMean)}`,
      ),
      big(
        'R_traj',
        r.r_traj,
        `${k.gamma_e} × search recall ${num(r.recall.search)} + ${k.gamma_o} ` +
          `× call recall ${num(r.recall.call)} + ${k.gamma_ans} × R_ans`,
      ),
      big('R_ans', r.r_ans, `from ${r.answer_source}${r.pattern ? ` (Q/F/U ${r.pattern})` : ''}`),
      r.r_state === undefined
        ? null
        : big(
            'R_state',
            r.r_state,
            `share of the task's assertions holding on the world; all hold: ${r.state_success ? 'yes' : 'no'}`,
          ),
    ),
    h(
      'p',
      null,
      'Success: ',
      r.success === null ? badge('unscored', 'soft') : badge(r.success ? 'yes' : 'no', r.success ? 'ok' : 'bad'),
      r.verdicts
        ? [
            ' · verdicts: quality ',
            verdict(r.verdicts.quality),
            ' faithfulness ',
            verdict(r.verdicts.faithfulness),
            ' utility ',
            verdict(r.verdicts.utility),
          ]
        : null,
      r.graph ? null : h('span', { class: 'muted' }, ' · no dependency graph: L2 and L3 not scored'),
    ),
    r.judge ? details('The judge', jsonBlock(r.judge)) : null,
    r.phases.length === 0
      ? h('p', { class: 'muted' }, 'No execution phase: R_phase counts none.')
      : table(
          ['phase', 'turns', 'L1 tools declared', 'L2 edges in G_dep', 'L3 order', 'L4 calls succeeded', 'score'],
          r.phases.map((p, i) => [
            String(i + 1),
            p.turns.join(', '),
            check(p.l1),
            check(p.l2),
            check(p.l3),
            num(p.l4_ratio),
            num(p.score),
          ]),
          'phases',
        ),
    h(
      'p',
      { class: 'muted' },
      `Weights: L1–L4 ${k.w1}, ${k.w2}, ${k.w3}, ${k.w4}; advantages λ traj ${k.lambda_traj}, phase ` +
        `${k.lambda_phase}, step ${k.lambda_step}, state ${k.lambda_state}.`,
    ),
  );
}

/** The task's `expect` assertions beside what the world holds: which held, and how many resources matched. */
function stateTable(expect: StateAssertion[], checks: StateCheck[] | undefined): HTMLElement {
  return table(
    ['assertion', 'api', 'collection', 'condition', 'matched', 'holds'],
    expect.map((a, i) => {
      const { assert, api, collection, ...condition } = a;
      const check = checks?.[i];
      return [
        assert,
        api,
        collection,
        h('code', null, JSON.stringify(condition)),
        check ? String(check.matched) : '–',
        check ? badge(check.held ? 'held' : 'failed', check.held ? 'ok' : 'bad') : badge('unread', 'soft'),
      ];
    }),
    'state',
  );
}

function verdict(value: string): HTMLElement {
  return badge(value, value === 'YES' ? 'ok' : value === 'NO' ? 'bad' : 'soft');
}

function check(value: boolean | null): HTMLElement {
  return value === null ? badge('n/a', 'soft') : badge(value ? 'pass' : 'fail', value ? 'ok' : 'bad');
}

function turnCard(turn: TurnRecord, trajectory: Trajectory, rewards: Rewards | undefined): HTMLElement {
  const score = rewards?.steps.find((s) => s.turn === turn.turn);
  const step = turn.step === undefined ? undefined : trajectory.steps.find((s) => s.step === turn.step);
  const changes = (step?.observations ?? []).filter(
    (o): o is ToolCallObservation => o.type === 'tool_call' && o.state !== undefined,
  );
  const plan = turn.plan;
  return h(
    'article',
    { class: 'turn', 'data-turn': turn.turn },
    h(
      'header',
      null,
      h('h3', null, `Turn ${turn.turn}`),
      badge(`state ${turn.controller}`, 'info'),
      badge(turn.well_formed ? 'well-formed' : 'malformed', turn.well_formed ? 'ok' : 'bad'),
      score ? h('span', { class: 'muted' }, ` r_base ${score.r_base} · r_plan ${score.r_plan}`) : null,
      turn.step !== undefined ? h('span', { class: 'muted' }, ` · step ${turn.step}`) : null,
    ),
    turn.rejected?.length
      ? h(
          'ul',
          { class: 'error' },
          turn.rejected.map((r) => h('li', null, r)),
        )
      : null,
    details('Model text', h('pre', { class: 'raw' }, turn.text)),
    plan
      ? h(
          'div',
          { class: 'plan' },
          h(
            'h4',
            null,
            `Plan: ${plan.phase ?? 'unreadable'} `,
            badge(plan.valid ? 'valid' : 'invalid', plan.valid ? 'ok' : 'bad'),
            plan.repeated ? badge('repeated', 'soft') : null,
            plan.accepted ? badge('accepted', 'ok') : null,
          ),
          plan.slots?.length
            ? h(
                'ul',
                null,
                plan.slots.map((s) => h('li', null, 'slot: ', h('q', null, s))),
              )
            : null,
          planDag(plan),
        )
      : null,
    turn.searches.length
      ? h(
          'div',
          null,
          h('h4', null, 'Searches'),
          table(
            ['id', 'query', 'results'],
            turn.searches.map((s) => [
              s.id,
              s.query,
              s.results.map((id) => [link(`/tool/${encodeURIComponent(id)}`, id), ' ']),
            ]),
          ),
        )
      : null,
    turn.calls.length
      ? h(
          'div',
          null,
          h('h4', null, 'Calls'),
          table(
            ['id', 'tool', 'status', 'source', 'injected', 'what came back'],
            turn.calls.map((call) => {
              const calls = (step?.observations ?? []).filter((o) => o.type === 'tool_call');
              const observation = calls.find((o) => o.id === call.id) ?? calls.find((o) => o.tool === call.tool);
              return [
                call.id,
                link(`/tool/${encodeURIComponent(call.tool)}`, call.tool),
                badge(String(call.status), call.ok ? 'ok' : 'bad'),
                observation?.source ?? '',
                call.injected ? badge(call.injected, 'bad') : '',
                observation && observation.body !== undefined ? details('body', jsonBlock(observation.body)) : '',
              ];
            }),
          ),
        )
      : null,
    turn.not_run.length
      ? h(
          'div',
          null,
          h('h4', null, 'Held back'),
          table(
            ['id', 'tool', 'kind', 'reason'],
            turn.not_run.map((n) => [n.id, n.tool, n.kind, n.reason]),
          ),
        )
      : null,
    changes.length
      ? h(
          'div',
          null,
          h('h4', null, 'World state'),
          table(
            ['call', 'tool', 'effect'],
            changes.map((o) => [o.id ?? '', o.tool, badge(o.state!, 'info')]),
          ),
        )
      : null,
    turn.answer !== undefined ? h('p', null, h('strong', null, 'Answer: '), turn.answer) : null,
    details('Observation sent back', h('pre', { class: 'raw' }, turn.observation)),
  );
}
