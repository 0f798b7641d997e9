import { api, ApiError, request } from './api.js';
import { badge, details, h, jsonBlock, link, num, section, table } from './dom.js';
import { asObject, sampleValue, schemaTable, typeOf } from './schema.js';
import type { Edge, Json, Tool } from './types.js';

/** One tool: what it does, takes and returns, its REST shape, its dependency edges, and a form that calls it. */
export async function toolView(view: HTMLElement, id: string): Promise<void> {
  const tool = await api<Tool>(`/v1/tools/${encodeURIComponent(id)}`);
  view.append(
    h('h1', null, tool.name || tool.id),
    h('p', null, h('code', null, tool.id), ' ', h('span', { class: 'chip' }, tool.category), ' ', restShape(tool)),
    h('p', { class: 'description' }, tool.description),
    tryIt(tool),
    section('Parameters', schemaTable(tool.parameters, tool.bindings)),
    section(`Response ${tool.response_status ?? 200}`, schemaTable(tool.response_schema)),
    section(
      `Examples (${tool.examples.length})`,
      tool.examples.length === 0
        ? h('p', { class: 'muted' }, 'The spec gives none: answers come from the synthesizer or a model.')
        : tool.examples.map((e) => details(`${e.name ?? 'example'} · ${e.status}`, jsonBlock(e.body))),
    ),
    await edges(tool.id),
    section('Origin', jsonBlock(tool.origin)),
  );
}

function restShape(tool: Tool): HTMLElement | null {
  const origin = tool.origin;
  if (origin.format !== 'openapi') return h('span', { class: 'muted' }, `imported from ${origin.format}`);
  return h(
    'code',
    { class: 'rest' },
    `${String(origin.method).toUpperCase()} /apis/${String(origin.api_id)}${String(origin.path)}`,
  );
}

async function edges(id: string): Promise<HTMLElement> {
  let graph: { in: Edge[]; out: Edge[] };
  try {
    graph = await api(`/v1/graph/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 503))
      return section('Dependencies', h('p', { class: 'muted' }, error.message));
    throw error;
  }
  const rows = (list: Edge[], other: (e: Edge) => string) =>
    list.map((e) => [
      link(`/tool/${encodeURIComponent(other(e))}`, other(e)),
      badge(e.kind, e.kind === 'hard' ? 'ok' : 'soft'),
      e.rule,
      num(e.score, 2),
    ]);
  const part = (title: string, list: Edge[], other: (e: Edge) => string) =>
    h(
      'div',
      null,
      h('h3', null, `${title} (${list.length})`),
      list.length === 0
        ? h('p', { class: 'muted' }, 'none')
        : table(['tool', 'kind', 'rule', 'score'], rows(list, other)),
    );
  return section(
    'Dependencies',
    h(
      'div',
      { class: 'columns' },
      part('Needs results of', graph.in, (e) => e.src),
      part('Feeds', graph.out, (e) => e.dst),
    ),
  );
}

/**
 * Fields for the top-level parameters (JSON for objects and arrays), the Prefer controls, and the answer with its
 * headers.
 */
function tryIt(tool: Tool): HTMLElement {
  const props = Object.entries(tool.parameters.properties ?? {});
  const required = new Set(tool.parameters.required ?? []);
  const fields = props.map(([name, schema]) => field(name, asObject(schema) ?? {}, required.has(name)));
  const prefer = h(
    'select',
    { name: 'prefer', 'aria-label': 'Prefer' },
    ['', 'dynamic=true', 'code=429', 'code=500', ...examplesOf(tool)].map((v) =>
      h('option', { value: v }, v || 'no Prefer header'),
    ),
  );
  const answer = h('div', { class: 'answer' });
  const form = h(
    'form',
    {
      class: 'try-it',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        answer.replaceChildren(h('p', { class: 'muted' }, 'calling…'));
        let args: Json;
        try {
          args = Object.fromEntries(fields.flatMap((f) => f.value()));
        } catch (error) {
          answer.replaceChildren(h('p', { class: 'error' }, (error as Error).message));
          return;
        }
        const started = performance.now();
        const response = await request(`/v1/tools/${encodeURIComponent(tool.id)}/call`, {
          method: 'POST',
          body: JSON.stringify({ arguments: args }),
          headers: prefer.value ? { prefer: prefer.value } : {},
        });
        const ms = performance.now() - started;
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Not JSON: shown as the text it is.
        }
        const source = response.headers.get('x-toolenv-source');
        const injected = response.headers.get('x-toolenv-error');
        answer.replaceChildren(
          h(
            'p',
            { class: 'call-meta' },
            badge(`status ${response.status}`, response.ok ? 'ok' : 'bad'),
            source ? badge(`source ${source}`, 'info') : null,
            injected ? badge(`injected ${injected}`, 'bad') : null,
            h('span', { class: 'muted' }, ` ${num(ms, 1)} ms`),
          ),
          jsonBlock(body),
        );
      },
    },
    fields.length === 0
      ? h('p', { class: 'muted' }, 'This tool takes no arguments.')
      : h(
          'div',
          { class: 'fields' },
          fields.map((f) => f.element),
        ),
    h('div', { class: 'actions' }, prefer, h('button', { type: 'submit', class: 'primary' }, 'Call')),
  );
  return section(
    'Try it',
    h(
      'p',
      { class: 'muted' },
      'Calls the tool through the simulator (rules, error injection, cache, responders) as POST /v1/tools/{id}/call.',
    ),
    form,
    answer,
  );
}

function examplesOf(tool: Tool): string[] {
  return tool.examples.filter((e) => e.name).map((e) => `example=${e.name}`);
}

interface Field {
  element: HTMLElement;
  /** The argument as [name, value], or none when left empty; throws on JSON that does not parse. */
  value(): [string, unknown][];
}

function field(name: string, schema: Json, required: boolean): Field {
  const type = typeOf(schema);
  const sample = sampleValue(schema);
  const label = h(
    'label',
    { for: `arg-${name}` },
    h('code', null, name),
    required ? h('span', { class: 'required' }, ' *') : null,
    h('span', { class: 'muted' }, ` ${type}`),
  );
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  let read: () => unknown;
  const enumValues = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined;
  if (enumValues) {
    input = h(
      'select',
      { id: `arg-${name}`, name },
      h('option', { value: '' }, '—'),
      enumValues.map((v, i) => h('option', { value: String(i), selected: v === sample }, JSON.stringify(v))),
    );
    read = () => (input.value === '' ? undefined : enumValues[Number(input.value)]);
  } else if (schema.type === 'boolean') {
    input = h(
      'select',
      { id: `arg-${name}`, name },
      h('option', { value: '' }, '—'),
      h('option', { value: 'true' }, 'true'),
      h('option', { value: 'false' }, 'false'),
    );
    if (typeof sample === 'boolean') input.value = String(sample);
    read = () => (input.value === '' ? undefined : input.value === 'true');
  } else if (schema.type === 'integer' || schema.type === 'number') {
    input = h('input', {
      id: `arg-${name}`,
      name,
      type: 'number',
      step: schema.type === 'integer' ? '1' : 'any',
      value: typeof sample === 'number' ? sample : undefined,
    });
    read = () => (input.value === '' ? undefined : Number(input.value));
  } else if (
    schema.type === 'string' ||
    (schema.type === undefined && schema.properties === undefined && schema.items === undefined)
  ) {
    input = h('input', {
      id: `arg-${name}`,
      name,
      type: 'text',
      value: typeof sample === 'string' ? sample : undefined,
      placeholder: typeof schema.format === 'string' ? schema.format : '',
    });
    read = () => (input.value === '' ? undefined : input.value);
  } else {
    input = h(
      'textarea',
      { id: `arg-${name}`, name, rows: 3, placeholder: 'JSON' },
      sample === undefined ? '' : JSON.stringify(sample, null, 2),
    );
    read = () => {
      if (input.value.trim() === '') return undefined;
      try {
        return JSON.parse(input.value) as unknown;
      } catch (error) {
        throw new Error(`${name}: not JSON (${(error as Error).message})`);
      }
    };
  }
  return {
    element: h('div', { class: 'field' }, label, input),
    value: () => {
      const value = read();
      return value === undefined ? [] : [[name, value]];
    },
  };
}
