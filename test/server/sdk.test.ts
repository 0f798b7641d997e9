/**
 * The vendors' own SDKs pointed at ToolEnv with only documented configuration: stripe-node (host and port, its
 * `/v1/…` paths hard-coded), Octokit and openai-node (a base URL), twilio-node (its HTTP client, which sees
 * `https://api.twilio.com` and sends it to the port), each at the root of a port of its API (`serve --api-port`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Octokit } from '@octokit/rest';
import OpenAI from 'openai';
import Stripe from 'stripe';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import type { RunningServer } from '../../src/server/serve.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { importFixtures } from '../fixtures/vendor-documents.js';
import { startTestServer } from './helpers.js';

const GITHUB = 'github.com:api.github.com';
const TWILIO = 'twilio.com:api';
type RequestOptions<T> = RequestClient.RequestOptions<T>;
const ACCOUNT = `AC${'0123456789abcdef'.repeat(2)}`;

async function newEpisode(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/episodes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ seed: 5 }),
  });
  return ((await response.json()) as { id: string }).id;
}

/** fetch sending every request inside the episode, as an SDK's own transport would with a default header. */
const episodeFetch =
  (episode: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-toolenv-episode', episode);
    return fetch(input, { ...init, headers });
  };

describe('vendor SDKs against the REST surface', () => {
  let server: RunningServer;
  let stripe: Stripe;
  let octokit: Octokit;
  before(async () => {
    const batch = await importFixtures();
    server = await startTestServer({
      tools: batch.tools,
      apis: batch.apis,
      responders: [synthResponder],
      apiPorts: [
        { apiId: 'stripe.com', port: 0 },
        { apiId: GITHUB, port: 0 },
        { apiId: TWILIO, port: 0 },
        { apiId: 'openai.com', port: 0 },
      ],
    });
    const stripeUrl = new URL(server.apiUrls['stripe.com']!);
    stripe = new Stripe('sk_test_toolenv', {
      host: stripeUrl.hostname,
      port: Number(stripeUrl.port),
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    octokit = new Octokit({ baseUrl: server.apiUrls[GITHUB], request: { retries: 0 } });
  });
  after(() => server.close());

  it('stripe-node retrieves a customer by the id it asked for and creates a charge from a form body', async () => {
    const customer = await stripe.customers.retrieve('cus_42');
    assert.equal(customer.id, 'cus_42');
    const charge = await stripe.charges.create({ amount: 1999, currency: 'usd' });
    assert.equal(charge.amount, 1999);
    assert.equal(typeof charge.id, 'string');
  });

  it('stripe-node reads a refusal as its own typed error, naming the parameter', async () => {
    await assert.rejects(
      () => stripe.charges.create({ currency: 'usd' } as Stripe.ChargeCreateParams),
      (error: unknown) => {
        assert.ok(error instanceof Stripe.errors.StripeInvalidRequestError, String(error));
        assert.equal(error.statusCode, 400);
        assert.equal(error.param, 'amount');
        assert.equal(error.code, 'parameter_missing');
        return true;
      },
    );
  });

  it('Octokit gets and creates issues and paginates a list; a refusal is its RequestError with the 422', async () => {
    const { data: issue } = await octokit.rest.issues.get({ owner: 'octocat', repo: 'hello-world', issue_number: 7 });
    assert.equal(issue.number, 7);
    const { data: created, status } = await octokit.rest.issues.create({
      owner: 'octocat',
      repo: 'hello-world',
      title: 'It crashes',
    });
    assert.equal(status, 201);
    assert.equal(created.title, 'It crashes');
    const listed = await octokit.paginate(octokit.rest.issues.listForRepo, {
      owner: 'octocat',
      repo: 'hello-world',
      per_page: 5,
    });
    assert.ok(Array.isArray(listed) && listed.every((i) => typeof i.number === 'number'));
    await assert.rejects(
      // Without its required title: the typings forbid it, the API refuses it.
      () =>
        octokit.request('POST /repos/{owner}/{repo}/issues', {
          owner: 'octocat',
          repo: 'hello-world',
          body: 'no title',
        } as unknown as { owner: string; repo: string; title: string }),
      (error: { status?: number; message?: string }) => {
        assert.equal(error.status, 422);
        assert.match(String(error.message), /\/title is required/);
        return true;
      },
    );
  });

  it('inside an episode, Octokit finds an issue at the number it was created as, and an org lists its own repositories', async () => {
    const inEpisode = new Octokit({
      baseUrl: server.apiUrls[GITHUB],
      request: { retries: 0, fetch: episodeFetch(await newEpisode(server.url)) },
    });
    const { data: created } = await inEpisode.rest.issues.create({
      owner: 'octo',
      repo: 'world',
      title: 'Kept by number',
    });
    const { data: found } = await inEpisode.rest.issues.get({
      owner: 'octo',
      repo: 'world',
      issue_number: created.number,
    });
    assert.equal(found.title, 'Kept by number');
    assert.equal(found.number, created.number);
    const { data: repos } = await inEpisode.rest.repos.listForOrg({ org: 'github', per_page: 3 });
    assert.ok(repos.length > 0, JSON.stringify(repos));
    for (const repo of repos) {
      assert.equal(repo.owner.login, 'github');
      assert.equal(repo.full_name, `github/${repo.name}`);
    }
  });

  it('inside an episode, stripe-node lists no more customers than its limit, the created one among them', async () => {
    const inEpisode = new Stripe('sk_test_toolenv', {
      host: new URL(server.apiUrls['stripe.com']!).hostname,
      port: Number(new URL(server.apiUrls['stripe.com']!).port),
      protocol: 'http',
      maxNetworkRetries: 0,
      httpClient: Stripe.createFetchHttpClient(episodeFetch(await newEpisode(server.url))),
    });
    const customer = await inEpisode.customers.create({ name: 'Ada Lovelace', metadata: { order_id: '6735' } });
    assert.deepEqual(customer.metadata, { order_id: '6735' });
    for (const limit of [1, 3]) {
      const page = await inEpisode.customers.list({ limit });
      assert.ok(page.data.length <= limit, `limit=${limit} listed ${page.data.length}`);
      assert.ok(page.data.some((listed) => listed.id === customer.id));
    }
  });

  it('openai-node: a chat completion reads as one (object, finish_reason, message, index, token sums)', async () => {
    const openai = new OpenAI({ apiKey: 'sk-toolenv', baseURL: server.apiUrls['openai.com'], maxRetries: 0 });
    for (const content of ['Hello!', 'Name three rivers.', 'And three lakes?']) {
      const completion = await openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content }],
      });
      assert.equal(completion.object, 'chat.completion');
      assert.ok(completion.choices.length > 0);
      completion.choices.forEach((choice, index) => {
        assert.equal(choice.index, index);
        assert.equal(typeof choice.message.content, 'string');
        assert.match(String(choice.finish_reason), /^[a-z_]+$/);
      });
      const usage = completion.usage!;
      assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens, JSON.stringify(usage));
    }
  });

  it('twilio-node: message sids in Twilio’s form, recipients as phone numbers, page links on the API’s server', async () => {
    const base = server.apiUrls[TWILIO]!;
    // twilio-node's documented seam: an HTTP client of one's own, here sending api.twilio.com's requests to the port.
    class PortClient extends twilio.RequestClient {
      override request<T>(opts: RequestOptions<T>) {
        return super.request<T>({ ...opts, uri: opts.uri.replace('https://api.twilio.com', base) });
      }
    }
    const client = twilio(ACCOUNT, 'token', { httpClient: new PortClient() });
    const sent = await client.messages.create({ to: '+15558675310', from: '+15017122661', body: 'Hi' });
    assert.match(sent.sid, /^(SM|MM)[0-9a-f]{32}$/);
    assert.equal(sent.to, '+15558675310');
    const page = await client.messages.page({ pageSize: 2 });
    assert.ok(page.instances.length <= 2);
    for (const message of page.instances) {
      assert.match(message.sid, /^(SM|MM)[0-9a-f]{32}$/);
      if (message.to) assert.match(message.to, /^\+\d{8,15}$/);
    }
    // Twilio's API answers `next_page_uri` relative and twilio-node joins it onto its domain, but Twilio's document
    // declares `format: uri`: answers are held to the document, so the link is absolute on the API's server (and
    // twilio-node's nextPage(), which would join it again, is not followed).
    const listed = (await (await fetch(`${base}/2010-04-01/Accounts/${ACCOUNT}/Messages.json?PageSize=2`)).json()) as {
      next_page_uri: string;
    };
    assert.equal(
      listed.next_page_uri,
      `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT}/Messages.json?PageSize=2&Page=1`,
    );
  });

  it('the API’s document served from its port names that port’s root as its server', async () => {
    const document = (await (await fetch(`${server.apiUrls[GITHUB]}/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    assert.equal(document.servers[0]!.url, server.apiUrls[GITHUB]);
    const main = (await (await fetch(`${server.url}/apis/${GITHUB}/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    assert.equal(main.servers[0]!.url, `${server.url}/apis/${GITHUB}`);
  });
});
