/**
 * The execution plan's DAG: Kahn layering (paper Eq. 3: each layer is every node of in-degree zero in the residual
 * graph), cycle reporting, and checking a layering the model wrote. A layer wider than the per-turn cap is not cut
 * here: the executor (dispatch.ts) defers the calls over the cap to the next turn.
 */

export interface DagNode {
  id: string;
  /** Ids this node depends on (its in-edges). */
  deps: readonly string[];
}

export type Layering = { ok: true; layers: string[][] } | { ok: false; cycle: string[] };

/**
 * Kahn's algorithm by layers. Inside a layer nodes keep the order they were given in. Unknown deps are ignored (check
 * them first).
 */
export function kahnLayers(nodes: readonly DagNode[]): Layering {
  const ids = new Set(nodes.map((n) => n.id));
  const indegree = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const node of nodes) {
    const deps = [...new Set(node.deps)].filter((d) => ids.has(d));
    indegree.set(node.id, deps.length);
    for (const dep of deps) dependents.set(dep, [...(dependents.get(dep) ?? []), node.id]);
  }
  const layers: string[][] = [];
  let frontier = nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  let placed = 0;
  while (frontier.length > 0) {
    layers.push(frontier);
    placed += frontier.length;
    const next = new Set<string>();
    for (const id of frontier) {
      for (const dependent of dependents.get(id) ?? []) {
        const left = indegree.get(dependent)! - 1;
        indegree.set(dependent, left);
        if (left === 0) next.add(dependent);
      }
    }
    frontier = nodes.filter((n) => next.has(n.id)).map((n) => n.id);
  }
  if (placed < nodes.length) return { ok: false, cycle: findCycle(nodes.filter((n) => indegree.get(n.id)! > 0)) };
  return { ok: true, layers };
}

/** One cycle among nodes that all lie on or behind a cycle, as `[a, b, …, a]`. */
function findCycle(nodes: readonly DagNode[]): string[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 'open');
    stack.push(id);
    for (const dep of byId.get(id)?.deps ?? []) {
      if (!byId.has(dep)) continue;
      if (state.get(dep) === 'open') return [...stack.slice(stack.indexOf(dep)), dep].reverse();
      if (state.get(dep) === undefined) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const node of nodes) {
    if (state.get(node.id) !== undefined) continue;
    const found = visit(node.id);
    if (found) return found;
  }
  return [];
}

/**
 * Problems with a layering the model wrote: every node exactly once, no unknown ids, and every dependency in an
 * earlier layer (nodes of one layer run together, so they cannot feed each other).
 */
export function checkLayers(nodes: readonly DagNode[], layers: readonly (readonly string[])[]): string[] {
  const problems: string[] = [];
  const layerOf = new Map<string, number>();
  const ids = new Set(nodes.map((n) => n.id));
  layers.forEach((layer, index) => {
    for (const id of layer) {
      if (!ids.has(id)) problems.push(`layers: layer ${index + 1} names ${id}, which is not a call of the plan`);
      else if (layerOf.has(id))
        problems.push(`layers: ${id} appears in layer ${layerOf.get(id)! + 1} and again in layer ${index + 1}`);
      else layerOf.set(id, index);
    }
  });
  for (const node of nodes) {
    const at = layerOf.get(node.id);
    if (at === undefined) {
      problems.push(`layers: ${node.id} is in no layer`);
      continue;
    }
    for (const dep of node.deps) {
      const depAt = layerOf.get(dep);
      if (depAt !== undefined && depAt >= at) {
        problems.push(
          `layers: ${node.id} (layer ${at + 1}) depends on ${dep}, which runs ` +
            `${depAt === at ? 'in the same layer' : `later (layer ${depAt + 1})`}`,
        );
      }
    }
  }
  return problems;
}
