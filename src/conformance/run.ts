/**
 * `toolenv conformance`: the REST surface of a seeded sample of APIs held to the documents it serves. The library is
 * served in this process (spec examples, then the synthesizer; no injected errors, no cache); each sampled
 * operation gets a valid request and the invalid ones of `cases.ts`, over real HTTP, and every answer is checked by
 * `check.ts`. Figures are proportions with their 95% Wilson interval and sample size, per API and overall. Under
 * `--security enforce` the server checks each operation's declared security: requests carry credentials that meet
 * it, and the same request without them, or with malformed ones, must be refused (401 or 403 where declared).
 */
import { LibraryStore } from '../library/store.js';
import { proportion, type Proportion } from '../fidelity/interval.js';
import { sampleIds } from '../fidelity/sample.js';
import { apiBaseUrl } from '../server/rest/catalog.js';
import { baseType } from '../server/rest/negotiate.js';
import { documentedTypes, operationFacts } from '../server/rest/operation-facts.js';
import { apiSecurity, type SecurityMode } from '../server/rest/security.js';
import { Rules } from '../simulator/validate.js';
import { covers, DocumentChecker } from './check.js';
import { requestCases, type CaseKind } from './cases.js';
import { operationCredentials } from './credentials.js';

export interface ConformanceOptions {
  library: string;
  /** APIs drawn (OpenAPI APIs with a REST surface). */
  sample: number;
  seed: number;
  /** Operations drawn per API at most. */
  operations: number;
  /** The server's check of declared security (default `ignore`). */
  security?: SecurityMode;
  /** Called after each API. */
  progress?: (done: number, total: number) => void;
}

/** Counts of one API, or of all of them. */
export interface Tally {
  operations: number;
  requests: number;
  /** 5xx answers, and requests that got no HTTP answer. */
  server_errors: number;
  /** JSON answers with a documented schema: valid against it. */
  valid_answers: Proportion;
  valid_accepted: Proportion;
  invalid_refused: Proportion;
  /**
   * Answers of operations that declare a 4xx of the answer's kind (`AnswerCheck.unfit`): their status declared.
   */
  statuses_declared: Proportion;
  /** Answers of operations declaring no 4xx of their kind, counted apart: their status declared. */
  statuses_declared_apart: Proportion;
  /** Answers of operations declaring any 4xx (the partition): their status declared. */
  statuses_declared_any_4xx: Proportion;
  media_documented: Proportion;
  /** Valid requests whose Accept names one documented success type: answered 2xx in that type. */
  accept_honoured: Proportion;
  /**
   * Requests whose Accept names no documented type: a 406 where the operation declares one (or `4XX`, `default`),
   * else the answer in a documented type (Accept disregarded, as RFC 9110 allows).
   */
  unacceptable_answered: Proportion;
  /** Invalid requests refused, by what was wrong. */
  refused_by_case: Record<string, Proportion>;
}

export interface ConformanceReport {
  library: string;
  seed: number;
  security: SecurityMode;
  sample: number;
  overall: Tally;
  apis: ({ api_id: string } & Tally)[];
  /** A few failures of each measure, to look into. */
  failures: { api_id: string; operation: string; case: CaseKind; measure: string; status: number; detail: string }[];
}

const MAX_FAILURES_LISTED = 40;

interface Counts {
  operations: number;
  requests: number;
  serverErrors: number;
  valid: [number, number];
  accepted: [number, number];
  refused: [number, number];
  declared: [number, number];
  declaredApart: [number, number];
  declaredAny4xx: [number, number];
  media: [number, number];
  acceptHonoured: [number, number];
  unacceptable: [number, number];
  byCase: Map<string, [number, number]>;
}

const counts = (): Counts => ({
  operations: 0,
  requests: 0,
  serverErrors: 0,
  valid: [0, 0],
  accepted: [0, 0],
  refused: [0, 0],
  declared: [0, 0],
  declaredApart: [0, 0],
  declaredAny4xx: [0, 0],
  media: [0, 0],
  acceptHonoured: [0, 0],
  unacceptable: [0, 0],
  byCase: new Map(),
});

const count = (pair: [number, number], hit: boolean) => {
  pair[1]++;
  if (hit) pair[0]++;
};

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const store = LibraryStore.open(options.library);
  const { startServer } = await import('../server/serve.js');
  const { examplesResponder } = await import('../simulator/examples.js');
  const { librarySynthResponder } = await import('../simulator/synth/responder.js');
  const security = options.security ?? 'ignore';
  const server = await startServer({
    library: options.library,
    security,
    responders: [examplesResponder, librarySynthResponder(options.library)],
    errorRate: 0,
    seed: options.seed,
    port: 0,
    log: () => {},
  });
  try {
    const rules = new Rules(store);
    const candidates = store
      .apis()
      .filter((api) => api.format === 'openapi')
      .map((api) => api.api_id)
      .filter((apiId) => store.apiOperations(apiId).length > 0);
    const apiIds = sampleIds(candidates, options.sample, options.seed);
    const overall = counts();
    const apis: ConformanceReport['apis'] = [];
    const failures: ConformanceReport['failures'] = [];
    for (const [index, apiId] of apiIds.entries()) {
      const base = apiBaseUrl(server.url, apiId);
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as Record<string, unknown>;
      const checker = new DocumentChecker(document);
      const operations = store.apiOperations(apiId);
      const secured = security === 'enforce' ? apiSecurity(document, operations) : undefined;
      const drawn = sampleIds(
        operations.map((op) => op.id),
        options.operations,
        options.seed + index,
      );
      const siblings = new Map<string, string[]>();
      for (const op of operations) {
        const key = routeKey(op.path, op.method);
        siblings.set(key, [...(siblings.get(key) ?? []), op.path]);
      }
      const mine = counts();
      for (const id of drawn) {
        const tool = store.get(id);
        if (tool?.origin.format !== 'openapi') continue;
        const { path, method } = tool.origin;
        const facts = operationFacts(document, path, method);
        mine.operations++;
        const variants = siblings.get(routeKey(path, method))!;
        const variant = variants.length > 1;
        const successTypes = documentedTypes(facts, tool.response_status ?? 200)?.types ?? [];
        const credentials = secured && operationCredentials(secured, tool.id);
        const context = { bodyRequired: facts.bodyRequired, variant, successTypes, credentials };
        // A refusal for credentials: a 401 or 403, one the operation declares where it declares either.
        const authDeclared = [401, 403].filter((code) => documentedTypes(facts, code) !== undefined);
        for (const request of requestCases(tool, rules, options.seed, context)) {
          mine.requests++;
          const note = (measure: string, status: number, detail: string) => {
            if (failures.filter((f) => f.measure === measure).length < MAX_FAILURES_LISTED)
              failures.push({ api_id: apiId, operation: tool.id, case: request.kind, measure, status, detail });
          };
          let response: Response;
          let text: string;
          try {
            response = await fetch(`${base}${request.url}`, {
              method: request.method.toUpperCase(),
              headers: request.headers,
              ...(request.body === undefined ? {} : { body: request.body }),
            });
            text = await response.text();
          } catch (error) {
            // No HTTP answer at all (a reset connection): worse than a 5xx, counted with them.
            mine.serverErrors++;
            const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
            note('no_answer', 0, `${request.method} ${request.url}: ${cause}`);
            continue;
          }
          const status = response.status;
          if (status >= 500) {
            mine.serverErrors++;
            note('server_error', status, text.slice(0, 200));
          }
          const contentType = response.headers.get('content-type');
          if (request.kind === 'valid' || request.kind === 'accept') {
            count(mine.accepted, status < 400);
            if (status >= 400) note('valid_accepted', status, text.slice(0, 200));
          }
          if (request.kind === 'accept') {
            // A success without a body (a 204) has no type to honour Accept in.
            const typed = text === '' || baseType(contentType ?? '') === baseType(request.headers.accept!);
            const honoured = status < 400 && typed;
            count(mine.acceptHonoured, honoured);
            if (!honoured) note('accept_honoured', status, `Accept ${request.headers.accept}: ${contentType}`);
          } else if (request.kind === 'unacceptable') {
            // 406 where the operation allows it; elsewhere Accept disregarded, the answer in a documented type.
            const allows406 = documentedTypes(facts, 406) !== undefined;
            const right = allows406
              ? status === 406
              : status < 400 && successTypes.some((type) => covers(type, contentType ?? ''));
            count(mine.unacceptable, right);
            if (!right) note('unacceptable_answered', status, `Accept ${request.headers.accept}: ${contentType}`);
          } else if (request.kind !== 'valid') {
            const forCredentials = request.kind === 'missing-credentials' || request.kind === 'wrong-credentials';
            const refused =
              status >= 400 &&
              status < 500 &&
              (!forCredentials || (authDeclared.length === 0 ? [401, 403] : authDeclared).includes(status));
            count(mine.refused, refused);
            const pair = mine.byCase.get(request.kind) ?? [0, 0];
            count(pair, refused);
            mine.byCase.set(request.kind, pair);
            if (!refused) note('invalid_refused', status, `${request.method} ${request.url}`);
          }
          // Variants of one method and path the request cannot choose among: the server answers as one of them, and
          // an answer valid for any is one the document allows (Box's GET /shared_items#web_links and #folders).
          const checked = checker.check(path, method, status, contentType, text);
          if (checked.valid === false && variant) {
            const other = variants.find((p) => p !== path && checker.check(p, method, status, contentType, text).valid);
            if (other !== undefined) {
              checked.valid = true;
              delete checked.errors;
            }
          }
          count(checked.unfit ? mine.declaredApart : mine.declared, checked.declared);
          if (!checked.noClientErrors) count(mine.declaredAny4xx, checked.declared);
          if (!checked.declared && !checked.unfit) note('statuses_declared', status, `${status}`);
          if (checked.mediaDocumented !== undefined) {
            count(mine.media, checked.mediaDocumented);
            if (!checked.mediaDocumented)
              note('media_documented', status, String(response.headers.get('content-type')));
          }
          if (checked.valid !== undefined) {
            count(mine.valid, checked.valid);
            if (!checked.valid) note('valid_answers', status, checked.errors ?? '');
          }
        }
      }
      apis.push({ api_id: apiId, ...tally(mine) });
      merge(overall, mine);
      options.progress?.(index + 1, apiIds.length);
    }
    return {
      library: options.library,
      seed: options.seed,
      security,
      sample: apiIds.length,
      overall: tally(overall),
      apis,
      failures,
    };
  } finally {
    await server.close();
    store.close();
  }
}

/**
 * Operations sharing a method and a path template are variants unless their suffixes fix a value to tell them apart
 * (`#X-Amz-Target=Svc.Op`, `?Action=Describe`): a request must carry that value, so it never reaches a sibling.
 */
function routeKey(path: string, method: string): string {
  const cut = path.search(/[#?]/);
  const fixed = cut !== -1 && /=[^&{]/.test(path.slice(cut + 1));
  return `${method.toLowerCase()} ${cut === -1 || fixed ? path : path.slice(0, cut)}`;
}

function merge(into: Counts, from: Counts): void {
  into.operations += from.operations;
  into.requests += from.requests;
  into.serverErrors += from.serverErrors;
  for (const key of [
    'valid',
    'accepted',
    'refused',
    'declared',
    'declaredApart',
    'declaredAny4xx',
    'media',
    'acceptHonoured',
    'unacceptable',
  ] as const) {
    into[key][0] += from[key][0];
    into[key][1] += from[key][1];
  }
  for (const [kind, [hits, n]] of from.byCase) {
    const pair = into.byCase.get(kind) ?? [0, 0];
    into.byCase.set(kind, [pair[0] + hits, pair[1] + n]);
  }
}

function tally(c: Counts): Tally {
  return {
    operations: c.operations,
    requests: c.requests,
    server_errors: c.serverErrors,
    valid_answers: proportion(...c.valid),
    valid_accepted: proportion(...c.accepted),
    invalid_refused: proportion(...c.refused),
    statuses_declared: proportion(...c.declared),
    statuses_declared_apart: proportion(...c.declaredApart),
    statuses_declared_any_4xx: proportion(...c.declaredAny4xx),
    media_documented: proportion(...c.media),
    accept_honoured: proportion(...c.acceptHonoured),
    unacceptable_answered: proportion(...c.unacceptable),
    refused_by_case: Object.fromEntries([...c.byCase].sort().map(([kind, pair]) => [kind, proportion(...pair)])),
  };
}
