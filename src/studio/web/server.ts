import { api, request } from './api.js';
import { h, mount, num, pct, section, table, type Child } from './dom.js';
import { parsePrometheus, sumBy, total, type Sample } from './metrics.js';
import { linePlot, type LinePlot } from './plot.js';

const REFRESH_MS = 2000;
/** Points kept for the rate plot: two minutes at the refresh interval. */
const HISTORY = 60;

/** What users watch on a running server, from GET /metrics and /healthz, refreshed every two seconds. */
export async function serverView(view: HTMLElement): Promise<() => void> {
  const body = h('div');
  const rateBox = h('div', null, h('p', { class: 'muted' }, 'The call rate plot fills in as the page refreshes.'));
  view.append(h('h1', null, 'Server'), body);
  const history: { t: number; calls: Map<string, number> }[] = [];
  // Kept across refreshes (its data replaced), and made again only when a new response source shows up.
  let rate: { sources: string; plot: LinePlot } | undefined;
  const load = async () => {
    const [health, text] = await Promise.all([
      api<{ tools: number; seed: number }>('/healthz'),
      request('/metrics').then((r) => (r.ok ? r.text() : Promise.reject(new Error(`metrics: ${r.status}`)))),
    ]);
    const samples = parsePrometheus(text);
    const calls = sumBy(samples, 'toolenv_calls_total', 'source');
    history.push({ t: Date.now() / 1000, calls });
    if (history.length > HISTORY) history.shift();
    const sources = [...new Set(history.flatMap((p) => [...p.calls.keys()]))].sort();
    if (history.length >= 3 && sources.length > 0) {
      const xs = history.slice(1).map((p) => Math.round(p.t - history[0]!.t));
      const series = sources.map((source) => ({
        label: source,
        values: history
          .slice(1)
          .map((p, i) => ((p.calls.get(source) ?? 0) - (history[i]!.calls.get(source) ?? 0)) / (p.t - history[i]!.t)),
      }));
      if (rate?.sources === sources.join()) rate.plot.update(xs, series);
      else {
        rate = { sources: sources.join(), plot: linePlot('calls per second', xs, series, 'seconds') };
        rateBox.replaceChildren(rate.plot.element);
      }
    }
    mount(body, parts(health, samples, calls, rateBox));
  };
  await load();
  const timer = window.setInterval(() => void load().catch(() => undefined), REFRESH_MS);
  return () => window.clearInterval(timer);
}

function parts(
  health: { tools: number; seed: number },
  samples: Sample[],
  calls: Map<string, number>,
  rateBox: HTMLElement,
): Child[] {
  const hits = total(samples, 'toolenv_cache_hits_total');
  const misses = total(samples, 'toolenv_cache_misses_total');
  const injected = sumBy(samples, 'toolenv_injected_errors_total', 'kind');
  const allCalls = [...calls.values()].reduce((a, b) => a + b, 0);
  const byStatus = sumBy(samples, 'toolenv_calls_total', 'status');
  const failed = [...byStatus].filter(([status]) => Number(status) >= 400).reduce((sum, [, n]) => sum + n, 0);
  const model = samples.filter((s) => s.name.startsWith('toolenv_model_'));
  const stat = (label: string, value: string, note?: string) =>
    h(
      'div',
      { class: 'stat' },
      h('div', { class: 'stat-value' }, value),
      h('div', { class: 'stat-label' }, label),
      note ? h('div', { class: 'muted' }, note) : null,
    );
  return [
    h(
      'div',
      { class: 'stats' },
      stat('tools', num(health.tools)),
      stat('calls', num(allCalls), `${num(failed)} answered ≥ 400`),
      stat(
        'cache hit ratio',
        hits + misses === 0 ? '—' : pct(hits / (hits + misses)),
        `${num(hits)} hits · ${num(misses)} misses`,
      ),
      stat('injected errors', num([...injected.values()].reduce((a, b) => a + b, 0))),
      stat('requests in flight', num(total(samples, 'toolenv_http_requests_in_flight')), 'this page’s own included'),
      stat('seed', String(health.seed)),
    ),
    section(
      'Calls by source',
      table(
        ['source', 'calls', 'share'],
        [...calls]
          .sort(([, a], [, b]) => b - a)
          .map(([source, n]) => [source, num(n), pct(allCalls === 0 ? null : n / allCalls)]),
      ),
      rateBox,
    ),
    section(
      'Injected errors',
      table(
        ['kind', 'count'],
        [...injected].map(([kind, n]) => [kind, num(n)]),
      ),
    ),
    section(
      'Model responder',
      model.length === 0
        ? h('p', { class: 'muted' }, 'No model responder (serve --responder llama or openai).')
        : [
            queue(samples),
            table(
              ['counter', 'value'],
              model
                .filter((s) => !s.name.startsWith('toolenv_model_queue_'))
                .map((s) => [
                  s.name
                    .replace(/^toolenv_model_/, '')
                    .replace(/_total$/, '')
                    .replaceAll('_', ' '),
                  num(s.value, 1),
                ]),
            ),
          ],
    ),
  ];
}

/** The model's queue from its gauges: what runs, what waits, and where new calls start being refused. */
function queue(samples: Sample[]): Child {
  const gauge = (name: string) => samples.find((s) => s.name === `toolenv_model_queue_${name}`)?.value;
  const running = gauge('running');
  if (running === undefined) return null;
  return h(
    'p',
    { class: 'queue' },
    h('strong', null, 'Queue: '),
    `${num(running)} of ${num(gauge('concurrency'))} generating, ${num(gauge('waiting'))} waiting (at most ` +
      `${num(gauge('max_waiting'))}, then calls are refused as busy)`,
  );
}
