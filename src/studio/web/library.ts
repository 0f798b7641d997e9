import { api, postJson } from './api.js';
import { add, h, link, num } from './dom.js';
import type { SearchHit, ToolPage, ToolSummary } from './types.js';

interface LibraryStats {
  tools: number;
  apis: number;
  categories: { category: string; tools: number }[];
  with_response_schema: number;
  with_examples: number;
}

/**
 * Search (the server's retrieval, `POST /v1/search`) over the library, narrowed by a category facet; with no query, the
 * category's tools in order.
 */
export async function libraryView(view: HTMLElement, params: URLSearchParams): Promise<void> {
  const query = params.get('q') ?? '';
  const category = params.get('category') ?? '';
  const stats = await api<LibraryStats>('/v1/library');
  const go = (next: { q?: string; category?: string }) => {
    const search = new URLSearchParams();
    const q = next.q ?? query;
    const c = next.category ?? category;
    if (q) search.set('q', q);
    if (c) search.set('category', c);
    location.hash = `#/library${search.size ? `?${search}` : ''}`;
  };
  const input = h('input', {
    type: 'search',
    name: 'q',
    value: query,
    placeholder: 'What should the tool do? e.g. "find a pet by id"',
    'aria-label': 'search tools',
    autofocus: true,
  });
  const form = h(
    'form',
    {
      class: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        go({ q: input.value.trim() });
      },
    },
    input,
    h('button', { type: 'submit' }, 'Search'),
  );
  const facets = h(
    'aside',
    { class: 'facets' },
    h('h3', null, 'Categories'),
    h(
      'button',
      { class: `facet${category ? '' : ' active'}`, onclick: () => go({ category: '' }) },
      'all',
      h('span', { class: 'count' }, num(stats.tools)),
    ),
    stats.categories.map((c) =>
      h(
        'button',
        {
          class: `facet${c.category === category ? ' active' : ''}`,
          'data-category': c.category,
          onclick: () => go({ category: c.category }),
        },
        c.category,
        h('span', { class: 'count' }, num(c.tools)),
      ),
    ),
  );
  const results = h('div', { class: 'results' });
  view.append(
    h('h1', null, 'Library'),
    h(
      'p',
      { class: 'muted' },
      `${num(stats.tools)} tools from ${num(stats.apis)} APIs in ${stats.categories.length} categories; ` +
        `${num(stats.with_response_schema)} with a response schema, ${num(stats.with_examples)} with examples.`,
    ),
    form,
    h('div', { class: 'library' }, facets, results),
  );
  const list = h('ol', { class: 'tool-list' });
  if (query) {
    const found = await postJson<{ results: SearchHit[] }>('/v1/search', {
      query,
      k: 25,
      ...(category ? { category } : {}),
    });
    add(
      results,
      h('h3', null, `${found.results.length} best matches for “${query}”${category ? ` in ${category}` : ''}`),
      found.results.length === 0 ? h('p', { class: 'muted' }, 'Nothing found.') : null,
      list,
    );
    add(list, found.results.map(hit));
    return;
  }
  add(
    results,
    h(
      'h3',
      null,
      category
        ? `Tools in ${category}, in library order`
        : 'Every tool, in library order; search to find one by what it does',
    ),
    list,
  );
  const more = h('button', { type: 'button', class: 'more' }, 'Show 50 more');
  const page = async (cursor: string | null) => {
    const next = await api<ToolPage>(
      `/v1/tools?limit=50${category ? `&category=${encodeURIComponent(category)}` : ''}` +
        `${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    add(list, next.tools.map(hit));
    if (next.next_cursor === null) more.remove();
    else more.onclick = () => void page(next.next_cursor);
  };
  results.append(more);
  await page(null);
}

function hit(t: ToolSummary | SearchHit): HTMLElement {
  return h(
    'li',
    { class: 'tool-hit' },
    link(`/tool/${encodeURIComponent(t.id)}`, t.name || t.id, 'tool-name'),
    h('span', { class: 'muted' }, ` ${t.id}`),
    h('span', { class: 'chip' }, t.category),
    'score' in t ? h('span', { class: 'score', title: 'retrieval score' }, num(t.score, 2)) : null,
    description(t),
  );
}

/** A hit's description, cut to a few lines (listings and search hits both carry it). */
function description(tool: ToolSummary | SearchHit): HTMLElement {
  const text = tool.description;
  return h('div', { class: 'description' }, text.length > 240 ? `${text.slice(0, 240)}…` : text);
}
