/**
 * The studio in a real browser against a real server on the fixture library (with --api-key and --runs): every view
 * loads without console errors, a search finds a tool, "try it" gets an answer, an episode shows its turns and
 * rewards, a run shows a plot, two runs compare. With TOOLENV_STUDIO_SCREENSHOTS=DIR each view is saved there as PNG
 * (docs/studio/ holds the committed ones: `npm run build && TOOLENV_STUDIO_SCREENSHOTS=docs/studio node --test
 * dist/test/studio/`).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/server/serve.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { tempDir } from '../fixtures/tools.js';
import { ANSWER, EXECUTE, EXPLORE, NEXT, TASK } from '../episodes/paraact-text.js';
import { postJson } from '../server/helpers.js';
import { browserMissing, collectErrors, launchChromium } from './browser.js';
import { studioFixture } from './fixture.js';
import { runRoutes } from '../../src/studio/routes.js';

const missing = browserMissing();
if (missing) process.stderr.write(`# skipping the studio browser tests: ${missing}\n`);
const KEY = 'studio-test-key';
const shots = process.env.TOOLENV_STUDIO_SCREENSHOTS;

let server: RunningServer;
let browser: Browser;
let page: Page;
let errors: string[];

before(async () => {
  if (missing) return;
  const { library, runs } = await studioFixture();
  server = await startServer({
    library,
    routes: [runRoutes(runs)],
    cache: join(tempDir(), 'responses.db'),
    responders: [examplesResponder, synthResponder],
    errorRate: 0,
    seed: 1,
    apiKey: KEY,
    port: 0,
    log: () => {},
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  errors = collectErrors(page);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function shot(name: string): Promise<void> {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
}

/** Opens a route and waits until the view has rendered (no request of the view in flight). */
async function open(route: string): Promise<void> {
  await page.goto(`${server.url}/studio#${route}`);
  await page.waitForSelector('main:not([aria-busy])');
}

const options = { skip: missing };

test('the key: without it the page asks for it; the page itself never holds it', options, async () => {
  await open('/library');
  await page.getByRole('alert').filter({ hasText: 'needs its API key' }).waitFor();
  const html = await (await fetch(`${server.url}/studio`)).text();
  assert.ok(!html.includes(KEY));
  // The console errors of the refused requests (401) are the browser's own report of them: not counted below.
  errors.length = 0;
  await page.fill('#key', KEY);
  await page.click('#key-form button');
  await page.waitForSelector('.facets .facet');
  assert.equal(await page.evaluate('sessionStorage.getItem("toolenv-studio-key")'), KEY);
  assert.ok(!page.url().includes(KEY));
});

test('library: categories as facets, and a search finds the tool', options, async () => {
  await open('/library');
  // Without a query, the whole library in pages of 50: the fixture's 14 tools fit in one, so no "more".
  await page.waitForSelector('.tool-hit');
  assert.equal(await page.locator('.tool-hit').count(), 14);
  assert.equal(await page.locator('button.more').count(), 0);
  const facets = await page.locator('.facets .facet').allTextContents();
  assert.ok(
    facets.some((f) => f.startsWith('weather')),
    facets.join(' | '),
  );
  await page.fill('input[name=q]', 'current weather in a city');
  await page.press('input[name=q]', 'Enter');
  await page.waitForSelector('.tool-hit');
  const names = await page.locator('.tool-hit .tool-name').allTextContents();
  assert.match(names.slice(0, 3).join(' | '), /weather/i);
  await page.click('.facets .facet[data-category="weather"]');
  await page.waitForSelector('.facet.active[data-category="weather"]');
  await page.waitForSelector('.tool-hit');
  const chips = await page.locator('.tool-hit .chip').allTextContents();
  assert.ok(chips.length > 0 && chips.every((c) => c === 'weather'), chips.join(', '));
  await shot('library');
  assert.deepEqual(errors, []);
});

test('tool page: schemas, REST shape, dependency edges; try it calls the simulator', options, async () => {
  await open('/tool/petstore_test__getPetById');
  await page.waitForSelector('table.schema');
  assert.match((await page.textContent('code.rest'))!, /GET \/apis\/petstore\.test\/pets\/\{petId\}/);
  assert.ok((await page.locator('table.schema td.name').allTextContents()).some((n) => n.includes('petId')));
  await page.fill('#arg-petId', '7');
  await page.click('form.try-it button[type=submit]');
  await page.waitForSelector('.answer .call-meta');
  const meta = await page.textContent('.answer .call-meta');
  assert.match(meta!, /status 200/);
  assert.match(meta!, /source (synth|example|cache)/);
  assert.match((await page.textContent('.answer pre'))!, /\{/);
  await page.selectOption('select[name=prefer]', 'code=429');
  await page.click('form.try-it button[type=submit]');
  await page.locator('.answer .call-meta', { hasText: 'status 429' }).waitFor();
  // Chromium reports every non-2xx fetch on the console: the 429 asked for above is the tool's answer, not a fault.
  assert.deepEqual(errors.splice(0), [
    'console: Failed to load resource: the server responded with a status of 429 (Too Many Requests)',
  ]);
  await shot('tool');
  // A list endpoint's response: the array, then its items' fields under it.
  await open('/tool/petstore_test__listPets');
  const response = page.locator('section', { hasText: 'Response 200' }).locator('td.name');
  assert.deepEqual((await response.allTextContents()).slice(0, 2), ['(value)', 'id *']);
  assert.deepEqual(errors, []);
});

test(
  'a live episode: its turns, the plan DAG, world state and the reward breakdown; a turn sent from the page',
  options,
  async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    const created = (await (await postJson(`${server.url}/v1/episodes`, { task: TASK, seed: 3 }, headers)).json()) as {
      id: string;
    };
    for (const text of [EXPLORE, EXECUTE, NEXT])
      assert.equal((await postJson(`${server.url}/v1/episodes/${created.id}/turns`, { text }, headers)).status, 200);
    await open('/episodes');
    await page.waitForSelector(`a.episode-link[href="#/episode/${created.id}"]`);
    await shot('episodes');
    await page.click(`a.episode-link[href="#/episode/${created.id}"]`);
    await page.waitForSelector('article.turn[data-turn="3"]');
    await page.fill('.turn-form textarea', ANSWER);
    await page.click('.turn-form button[type=submit]');
    await page.waitForSelector('article.turn[data-turn="4"]');
    assert.equal(await page.locator('svg.dag .dag-node').count(), 2);
    assert.equal(await page.locator('svg.dag .dag-edge').count(), 1);
    assert.match((await page.textContent('.rewards'))!, /R_step[\s\S]*R_phase[\s\S]*R_traj[\s\S]*R_ans/);
    assert.match((await page.textContent('table.phases'))!, /pass/);
    assert.match((await page.textContent('.view'))!, /World state[\s\S]*created/);
    assert.match((await page.textContent('.view'))!, /done: answer/);
    // What came back: the body the call answered, as the episode recorded it.
    assert.match((await page.locator('article.turn[data-turn="2"] td details pre').textContent())!, /"name": "Rex"/);
    await page.setViewportSize({ width: 1280, height: 1500 });
    await shot('episode');
    await page.setViewportSize({ width: 1280, height: 860 });
    assert.deepEqual(errors, []);
  },
);

test(
  'runs: a training run plots its curves, an eval run compares its agents and opens a saved episode',
  options,
  async () => {
    await open('/runs');
    const names = await page.locator('td a').allTextContents();
    assert.deepEqual([...names].sort(), ['eval-a', 'eval-b', 'learner', 'train/rl-a', 'train/rl-b']);
    await open(`/run/${encodeURIComponent('train/rl-a')}`);
    await page.waitForSelector('.plot canvas');
    const metrics = await page.locator('.plot').evaluateAll((plots) => plots.map((p) => p.getAttribute('data-metric')));
    for (const m of ['r_step', 'r_traj', 'success', 'turns', 'actions_per_turn', 'loss'])
      assert.ok(metrics.includes(m), metrics.join(', '));
    // Two tasks, one a step: each reward also plotted as the mean of every epoch; the loss is not a reward.
    const rewardLegend = await page.locator('.plot[data-metric="r_traj"] .u-legend .u-series th').allTextContents();
    assert.ok(
      rewardLegend.some((l) => l.includes('epoch mean (2 steps, every task once)')),
      rewardLegend.join(' | '),
    );
    const lossLegend = await page.locator('.plot[data-metric="loss"] .u-legend .u-series th').allTextContents();
    assert.ok(!lossLegend.some((l) => l.includes('epoch mean')), lossLegend.join(' | '));
    await open('/run/eval-a');
    await page.waitForSelector('table.agents');
    const agents = await page.locator('table.agents tbody tr td:nth-child(2)').allTextContents();
    assert.deepEqual(agents, ['paraact', 'react']);
    await shot('run-eval');
    await page.click('a.episode-link >> nth=0');
    await page.waitForSelector('article.turn');
    assert.ok((await page.locator('.reward-value').count()) === 4);
    assert.deepEqual(errors, []);
  },
);

test('a learner run: the held-out table over seeds, its curves with the control beside', options, async () => {
  await open('/run/learner');
  await page.waitForSelector('.plot canvas');
  const policies = await page.locator('table tbody tr td:first-child').allTextContents();
  assert.deepEqual(policies.slice(0, 5), ['untrained', 'trained', 'control', 'random', 'heuristic']);
  const plots = await page.locator('.plot').evaluateAll((all) => all.map((p) => p.getAttribute('data-metric')));
  assert.equal(plots.length, 4);
  const legend = await page.locator('.plot >> nth=0').locator('.u-legend .u-series th').allTextContents();
  for (const series of ['trained', 'control (shuffled rewards)', 'random', 'heuristic']) {
    assert.ok(
      legend.some((l) => l.includes(series)),
      legend.join(' | '),
    );
  }
  await shot('run-learner');
  assert.deepEqual(errors, []);
});

test('two runs side by side: one plot per metric, a series per run', options, async () => {
  await open('/runs');
  await page.check('input[value="train/rl-a"]');
  await page.check('input[value="train/rl-b"]');
  await page.click('text=Compare selected');
  await page.waitForSelector('.plot canvas');
  const legend = await page.locator('.plot[data-metric="r_step"] .u-legend .u-series th').allTextContents();
  assert.ok(
    legend.some((l) => l.includes('train/rl-a')) && legend.some((l) => l.includes('train/rl-b')),
    legend.join(' | '),
  );
  await shot('runs-compare');
  assert.deepEqual(errors, []);
});

test('server: calls by source, cache hit ratio, injected errors, refreshing', options, async () => {
  await open('/server');
  await page.waitForSelector('.stats');
  const before = await page.textContent('.stats');
  assert.match(before!, /cache hit ratio/);
  await postJson(
    `${server.url}/v1/tools/petstore_test__listPets/call`,
    { arguments: {} },
    { authorization: `Bearer ${KEY}` },
  );
  // Polled from here: the page's CSP forbids the eval a string predicate would need.
  for (let tries = 0; (await page.textContent('.stats')) === before; tries++) {
    assert.ok(tries < 50, 'the server view did not refresh within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await page.waitForSelector('.plot canvas', { timeout: 20_000 });
  assert.match((await page.textContent('.view'))!, /Calls by source[\s\S]*synth/);
  await shot('server');
  assert.deepEqual(errors, []);
});
