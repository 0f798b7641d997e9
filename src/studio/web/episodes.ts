import { api, postJson } from './api.js';
import { badge, h, link, section, table } from './dom.js';
import type { EpisodeSummary } from './types.js';

/**
 * The episodes the server holds (live and finished, until deleted or expired), refreshed; and a form that starts one.
 */
export async function episodesView(view: HTMLElement): Promise<() => void> {
  const list = h('div');
  const load = async () => {
    const { episodes, total } = await api<{ episodes: EpisodeSummary[]; total: number }>('/v1/episodes?limit=200');
    list.replaceChildren(
      h(
        'p',
        { class: 'muted' },
        `${total} held by this server${total > episodes.length ? `, the newest ${episodes.length} shown` : ''}. ` +
          'Clients that delete their episodes when done (eval, train) leave them in their run directories: see Runs.',
      ),
      episodes.length === 0
        ? h('p', { class: 'empty' }, 'No episodes yet. Start one below, or run an agent against this server.')
        : table(
            ['episode', 'task', 'protocol', 'state', 'turns', 'calls', 'failed', 'started'],
            episodes.map((e) => [
              h(
                'span',
                { title: e.id },
                link(`/episode/${encodeURIComponent(e.id)}`, e.id.slice(0, 13), 'episode-link'),
              ),
              e.task?.query ?? '',
              e.protocol,
              e.done ? badge(e.finish ?? 'done', e.finish === 'answer' ? 'ok' : 'soft') : badge('live', 'live'),
              String(e.counts.turns),
              String(e.counts.calls),
              String(e.counts.failed_calls),
              new Date(e.created_at).toLocaleTimeString(),
            ]),
          ),
    );
  };
  await load();
  const query = h('input', {
    name: 'query',
    type: 'text',
    placeholder: 'Task query, e.g. "What is the status of pet 7?"',
    required: true,
  });
  const protocol = h(
    'select',
    { name: 'protocol' },
    ['paraact', 'react', 'parallel'].map((p) => h('option', { value: p }, p)),
  );
  const start = h(
    'form',
    {
      class: 'inline',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const created = await postJson<EpisodeSummary>('/v1/episodes', {
          task: { id: 'studio', query: query.value },
          protocol: protocol.value,
        });
        location.hash = `#/episode/${encodeURIComponent(created.id)}`;
      },
    },
    query,
    protocol,
    h('button', { type: 'submit' }, 'Start episode'),
  );
  view.append(
    h('h1', null, 'Episodes'),
    list,
    section(
      'New episode',
      h('p', { class: 'muted' }, 'Starts an episode and opens it; send it raw model turns from its page.'),
      start,
    ),
  );
  const timer = window.setInterval(() => void load().catch(() => window.clearInterval(timer)), 3000);
  return () => window.clearInterval(timer);
}
