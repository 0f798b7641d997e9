/** A few DOM helpers: the studio builds its views from plain elements, with no framework. */

export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | EventListener | undefined | null>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attrs, children);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs?: Attrs | null, ...children: Child[]): SVGElement {
  return fill(document.createElementNS(SVG_NS, tag) as SVGElement, attrs, children);
}

function fill<E extends Element>(element: E, attrs: Attrs | null | undefined, children: Child[]): E {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children to an element, skipping the empty ones (null, undefined, false). */
export function add(parent: Element, ...children: Child[]): void {
  append(parent, children);
}

/** Replaces an element's children. */
export function mount(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.append(typeof child === 'number' ? String(child) : child);
  }
}

/** A number for reading: fixed decimals, thousands grouped, and a dash for none. */
export function num(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return Number.isInteger(value)
    ? value.toLocaleString('en')
    : value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: Math.min(digits, 2) });
}

export function pct(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${(value * 100).toFixed(1)}%`;
}

/** JSON, indented, in a scrollable block. */
export function jsonBlock(value: unknown, className = 'json'): HTMLElement {
  return h('pre', { class: className }, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

/** A table from a header row and body rows. */
export function table(head: Child[], rows: Child[][], className?: string): HTMLTableElement {
  return h(
    'table',
    { class: className },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        head.map((cell) => h('th', null, cell)),
      ),
    ),
    h(
      'tbody',
      null,
      rows.map((row) =>
        h(
          'tr',
          null,
          row.map((cell) => h('td', null, cell)),
        ),
      ),
    ),
  );
}

export function badge(text: string, kind: string): HTMLElement {
  return h('span', { class: `badge ${kind}` }, text);
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'card' }, h('h2', null, title), ...children);
}

/** A link inside the studio's hash routes. */
export function link(route: string, text: Child, className?: string): HTMLAnchorElement {
  return h('a', { href: `#${route}`, class: className }, text);
}

export function details(summary: Child, ...children: Child[]): HTMLDetailsElement {
  return h('details', null, h('summary', null, summary), ...children);
}
