import type { Operations } from './openapi-parts.js';

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The methods `/openapi.json` declares for the path a request names, or undefined where it declares none. A literal path
 * wins over templated ones, as OpenAPI reads them: `/v1/graph/subgraph` takes POST only, though the router would also
 * match GET `/v1/graph/{id}` there. A declared GET brings HEAD, which every GET route answers.
 */
export function declaredMethods(declared: readonly Operations[], path: string): string[] | undefined {
  let best: { params: number; methods: Set<string> } | undefined;
  for (const operations of declared) {
    for (const [template, item] of Object.entries(operations)) {
      const params = template.split('{').length - 1;
      if (best && params > best.params) continue;
      if (!templatePattern(template).test(path)) continue;
      const methods = new Set(Object.keys(item).map((method) => method.toUpperCase()));
      if (methods.has('GET')) methods.add('HEAD');
      if (!best || params < best.params) best = { params, methods };
      else for (const method of methods) best.methods.add(method);
    }
  }
  return best && ORDER.filter((method) => best.methods.has(method));
}

const patterns = new Map<string, RegExp>();

/** `/v1/tools/{id}` as a pattern of whole paths; the APIs' `{path}` spans slashes, as their route does. */
function templatePattern(template: string): RegExp {
  let pattern = patterns.get(template);
  if (!pattern) {
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) =>
        part === '{path}' ? '.+' : part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
      )
      .join('');
    patterns.set(template, (pattern = new RegExp(`^${source}$`)));
  }
  return pattern;
}
