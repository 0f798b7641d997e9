import { api, request } from './api.js';
import { h, num, pct, section, table } from './dom.js';
import { parsePrometheus, sumBy, total, type Sample } from './metrics.js';
import { linePlot } from './plot.js';

const REFRESH_MS = 2000;
/** Points kept for the rate plot: two minutes at the refresh interval. */
const HISTORY = 60;

/** What users watch on a running server, from GET /metrics and /healthz, refreshed every two seconds. */
export async function serverView(view: HTMLElement): Promise<() => void> {
  const body = h('div');
  view.append(h('h1', null, 'Server'), body);
  const history: { t: number; calls: Map<string, number> }[] = [];
  const load = async () => {
    const [health, text] = await Promise.all([api<{ tools: number; seed: number }>('/healthz'), request('/metrics').then((r) => (r.ok ? r.text() : Promise.reject(new Error(`metrics: ${r.status}`))))]);
    const samples = parsePrometheus(text);
    const calls = sumBy(samples, 'toolenv_calls_total', 'source');
    history.push({ t: Date.now() / 1000, calls });
    if (history.length > HISTORY) history.shift();
    body.replaceChildren(...parts(health, samples, calls, history));
  };
  await load();
  const timer = window.setInterval(() => void load().catch(() => undefined), REFRESH_MS);
  return () => window.clearInterval(timer);
}

function parts(health: { tools: number; seed: number }, samples: Sample[], calls: Map<string, number>, history: { t: number; calls: Map<string, number> }[]) {
  const hits = total(samples, 'toolenv_cache_hits_total');
  const misses = total(samples, 'toolenv_cache_misses_total');
  const injected = sumBy(samples, 'toolenv_injected_errors_total', 'kind');
  const allCalls = [...calls.values()].reduce((a, b) => a + b, 0);
  const byStatus = sumBy(samples, 'toolenv_calls_total', 'status');
  const failed = [...byStatus].filter(([status]) => Number(status) >= 400).reduce((sum, [, n]) => sum + n, 0);
  const model = samples.filter((s) => s.name.startsWith('toolenv_model_'));
  const stat = (label: string, value: string, note?: string) => h('div', { class: 'stat' }, h('div', { class: 'stat-value' }, value), h('div', { class: 'stat-label' }, label), note ? h('div', { class: 'muted' }, note) : null);
  const sources = [...new Set(history.flatMap((p) => [...p.calls.keys()]))].sort();
  const rates = history.slice(1).map((p, i) => ({ t: p.t, prev: history[i]! , p }));
  return [
    h(
      'div',
      { class: 'stats' },
      stat('tools', num(health.tools)),
      stat('calls', num(allCalls), `${num(failed)} answered ≥ 400`),
      stat('cache hit ratio', hits + misses === 0 ? '—' : pct(hits / (hits + misses)), `${num(hits)} hits · ${num(misses)} misses`),
      stat('injected errors', num([...injected.values()].reduce((a, b) => a + b, 0))),
      stat('requests in flight', num(total(samples, 'toolenv_http_requests_in_flight'))),
      stat('seed', String(health.seed)),
    ),
    section(
      'Calls by source',
      table(['source', 'calls', 'share'], [...calls].sort(([, a], [, b]) => b - a).map(([source, n]) => [source, num(n), pct(allCalls === 0 ? null : n / allCalls)])),
      rates.length >= 2 && sources.length > 0
        ? linePlot(
            'calls per second',
            rates.map((r) => Math.round(r.t - history[0]!.t)),
            sources.map((source) => ({ label: source, values: rates.map((r) => ((r.p.calls.get(source) ?? 0) - (r.prev.calls.get(source) ?? 0)) / (r.p.t - r.prev.t)) })),
            'seconds',
          )
        : h('p', { class: 'muted' }, 'The call rate plot fills in as the page refreshes.'),
    ),
    section('Injected errors', table(['kind', 'count'], [...injected].map(([kind, n]) => [kind, num(n)]))),
    section(
      'Model responder',
      model.length === 0
        ? h('p', { class: 'muted' }, 'No model responder (serve --responder llama or openai).')
        : table(['counter', 'value'], model.map((s) => [s.name.replace(/^toolenv_model_/, '').replace(/_total$/, '').replaceAll('_', ' '), num(s.value, 1)])),
    ),
  ];
}
