import { ApiError, apiKey, AUTH_EVENT, setApiKey } from './api.js';
import { h } from './dom.js';
import { liveEpisodeView, savedEpisodeView } from './episode.js';
import { episodesView } from './episodes.js';
import { libraryView } from './library.js';
import { compareView, runsView, runView } from './runs.js';
import { serverView } from './server.js';
import { toolView } from './tool.js';

/** A view renders into the page's main element; one that refreshes returns how to stop. */
// biome-ignore lint/suspicious/noConfusingVoidType: an async view that returns nothing is a Promise<void>
type View = (view: HTMLElement, params: URLSearchParams, ...parts: string[]) => Promise<void | (() => void)>;

const ROUTES: [RegExp, string, View][] = [
  [/^\/library$/, 'library', (v, p) => libraryView(v, p)],
  [/^\/tool\/([^/]+)$/, 'library', (v, _p, id) => toolView(v, id!)],
  [/^\/episodes$/, 'episodes', (v) => episodesView(v)],
  [/^\/episode\/([^/]+)$/, 'episodes', (v, _p, id) => liveEpisodeView(v, id!)],
  [/^\/runs$/, 'runs', (v) => runsView(v)],
  [/^\/compare$/, 'runs', (v, p) => compareView(v, p)],
  [/^\/run\/([^/]+)$/, 'runs', (v, _p, name) => runView(v, name!)],
  [/^\/run\/([^/]+)\/episode\/([^/]+)$/, 'runs', (v, _p, name, id) => savedEpisodeView(v, name!, id!)],
  [/^\/server$/, 'server', (v) => serverView(v)],
];

const main = document.getElementById('view')!;
let stop: (() => void) | undefined;
let rendering = 0;

async function render(): Promise<void> {
  stop?.();
  stop = undefined;
  const mine = ++rendering;
  const [path = '', query = ''] = location.hash.replace(/^#/, '').split('?');
  const route = ROUTES.find(([pattern]) => pattern.test(path));
  if (!route) {
    location.replace('#/library');
    return;
  }
  const [pattern, nav, view] = route;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a'))
    a.classList.toggle('active', a.dataset.view === nav);
  const parts = pattern
    .exec(path)!
    .slice(1)
    .map((p) => decodeURIComponent(p));
  const target = h('div', { class: 'view' });
  main.replaceChildren(target);
  main.setAttribute('aria-busy', 'true');
  try {
    const cleanup = await view(target, new URLSearchParams(query), ...parts);
    if (mine === rendering) stop = cleanup ?? undefined;
    else cleanup?.();
  } catch (error) {
    if (mine !== rendering) return;
    target.append(
      h(
        'div',
        { class: 'problem', role: 'alert' },
        h(
          'strong',
          null,
          error instanceof ApiError && error.status === 401
            ? 'This server needs its API key: enter it above. '
            : 'Could not load this view. ',
        ),
        (error as Error).message,
      ),
    );
  } finally {
    if (mine === rendering) main.removeAttribute('aria-busy');
  }
}

const keyForm = document.getElementById('key-form') as HTMLFormElement;
const keyInput = document.getElementById('key') as HTMLInputElement;
keyInput.value = apiKey() ?? '';
keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  setApiKey(keyInput.value.trim());
  keyForm.classList.remove('wanted');
  void render();
});
window.addEventListener(AUTH_EVENT, () => keyForm.classList.add('wanted'));
window.addEventListener('hashchange', () => void render());
void render();
