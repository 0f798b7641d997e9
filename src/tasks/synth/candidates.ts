import { linkPath } from '../../agent/heuristic/links.js';
import { resourceKind } from '../../episodes/resource-op.js';
import type { Graph } from '../../graph/store.js';
import type { LibraryStore } from '../../library/store.js';
import type { Tool } from '../../library/tool.js';
import type { Rng } from '../../simulator/synth/random.js';
import { MAX_GIVEN_ARGUMENTS } from './arguments.js';

/**
 * How the calls of a task relate: one call, a chain along hard edges, independent calls, or a chain beside an
 * independent call.
 */
export const TASK_KINDS = ['single', 'chain', 'parallel', 'mix'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

/**
 * What a task asks for: an answer read off the results (`read`), a change of the episode's world checked by its
 * `expect` assertions (`write`), or both (`mixed`).
 */
export const TASK_GOALS = ['read', 'write', 'mixed'] as const;
export type TaskGoal = (typeof TASK_GOALS)[number];

/**
 * A consumer of a producer's result: the tool, the required parameter the result fills, and where in it (`body.id`).
 */
export interface Link {
  tool: Tool;
  param: string;
  path: string;
}

/** Attempts at one walk before a sampler gives up on it. */
const WALK_ATTEMPTS = 50;

/**
 * The tools reference chains are drawn from, and G_dep's hard edges between them. A tool takes part when a task can be
 * stated for it: a REST tool with a response schema, a 2xx answer with a body, and few enough required parameters.
 * Tools are checked as they are drawn (parsing all 50,011 records up front would cost more than making a thousand
 * tasks). For write tasks a tool takes part when its calls create, update or delete a resource (a 204 counts), and
 * chains start at a create.
 */
export class CandidatePool {
  private readonly usable = new Map<string, Tool | null>();
  private readonly out = new Map<string, string[]>();
  private readonly hard: { src: string; dst: string }[];
  private readonly ids: readonly string[];

  constructor(
    private readonly store: LibraryStore,
    private readonly graph: Graph,
    category?: string,
    private readonly goal: TaskGoal = 'read',
  ) {
    this.ids = category === undefined ? store.ids() : categoryIds(store, category);
    const inCategory = category === undefined ? undefined : new Set(this.ids);
    // With a category, chains stay inside it: both ends of every edge walked are of the category.
    this.hard = graph
      .edgesOfKind('hard')
      .filter((e) => e.src !== e.dst && (!inCategory || (inCategory.has(e.src) && inCategory.has(e.dst))));
    for (const { src, dst } of this.hard) {
      const list = this.out.get(src);
      if (list) list.push(dst);
      else this.out.set(src, [dst]);
    }
  }

  /** A usable tool that starts a chain: one with hard successors. */
  chainStart(rng: Rng): Tool | undefined {
    if (this.hard.length === 0) return undefined;
    for (let attempt = 0; attempt < WALK_ATTEMPTS; attempt++) {
      const tool = this.tool(rng.pick(this.hard).src);
      if (tool && (this.goal === 'read' || resourceKind(tool) === 'create')) return tool;
    }
    return undefined;
  }

  /**
   * The hard successors of `producer` not yet `taken`, in a random order, each with the required parameter its
   * result fills and where in that result (the chain is grown by running it: the first whose link resolves in the
   * producer's actual result and that answers 2xx is kept).
   */
  *successors(producer: Tool, taken: readonly string[], rng: Rng): Generator<Link> {
    for (const id of rng.shuffle(this.out.get(producer.id) ?? [])) {
      if (taken.includes(id)) continue;
      const consumer = this.tool(id);
      if (!consumer) continue;
      for (const param of consumer.parameters.required ?? []) {
        const path = linkPath(consumer, param, producer);
        if (path) {
          yield { tool: consumer, param, path };
          break;
        }
      }
    }
  }

  /** A usable tool, any. */
  single(rng: Rng): Tool | undefined {
    if (this.ids.length === 0) return undefined;
    for (let attempt = 0; attempt < WALK_ATTEMPTS * 4; attempt++) {
      const tool = this.tool(rng.pick(this.ids));
      if (tool) return tool;
    }
    return undefined;
  }

  /** A usable tool with no edge, either way, to any of `taken`: it can run beside them. */
  independent(taken: readonly string[], rng: Rng): Tool | undefined {
    for (let attempt = 0; attempt < WALK_ATTEMPTS; attempt++) {
      const tool = this.single(rng);
      if (!tool || taken.includes(tool.id)) continue;
      if (this.graph.subgraph([...taken, tool.id]).every((e) => e.src !== tool.id && e.dst !== tool.id)) return tool;
    }
    return undefined;
  }

  /** The tool when a task can be stated for it, else undefined; checked once per tool. */
  private tool(id: string): Tool | undefined {
    let known = this.usable.get(id);
    if (known === undefined) {
      const tool = this.store.get(id);
      // The category needs no check here: ids and edges were both drawn from it.
      known = tool && (this.goal === 'read' ? isStatable(tool) : isWritable(tool)) ? tool : null;
      this.usable.set(id, known);
    }
    return known ?? undefined;
  }
}

/** Every tool id of one category, read from the library's index (a small category is then drawn from directly). */
function categoryIds(store: LibraryStore, category: string): string[] {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = store.list({ category, limit: 1000, ...(cursor ? { cursor } : {}) });
    ids.push(...page.tools.map((t) => t.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

function isStatable(tool: Tool): boolean {
  const status = tool.response_status ?? 200;
  return (
    tool.origin.format === 'openapi' &&
    tool.response_schema !== undefined &&
    status >= 200 &&
    status < 300 &&
    status !== 204 &&
    (tool.parameters.required ?? []).length <= MAX_GIVEN_ARGUMENTS + 1
  );
}

/** A REST tool that creates, updates or deletes a resource, with few enough required parameters to state. */
function isWritable(tool: Tool): boolean {
  const status = tool.response_status ?? 200;
  const kind = resourceKind(tool);
  return (
    (kind === 'create' || kind === 'update' || kind === 'delete') &&
    status >= 200 &&
    status < 300 &&
    (tool.parameters.required ?? []).length <= MAX_GIVEN_ARGUMENTS + 1
  );
}
