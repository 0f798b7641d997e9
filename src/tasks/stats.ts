import type { LibraryClient } from '../eval/library-client.js';
import { mapReferences } from '../eval/map-references.js';
import type { TaskFile, TaskFormat, ToolReference } from '../eval/tasks.js';
import type { LibraryStore, ToolSummary } from '../library/store.js';

/** Tasks by how many reference tools they name: Table 3's columns, plus the tasks that name none. */
export const TOOL_COUNT_BUCKETS = ['0', '1', '2', '3', '4+'] as const;
export type ToolCountBucket = (typeof TOOL_COUNT_BUCKETS)[number];

/** What `toolenv tasks stats` reports of one task file. */
export interface TaskStats {
  file: string;
  format: TaskFormat;
  tasks: number;
  /** Tasks by `meta.source` when the task has one, else by the file's format; most tasks first. */
  sources: Record<string, number>;
  tools_per_task: Record<ToolCountBucket, number>;
  /** Reference tools over all tasks (a task's own repeats counted once). */
  references: number;
  /** Reference tools by the library category of their tool, most first; null without a library to look them up in. */
  categories: Record<string, number> | null;
  /** Reference tools the library has no tool for; null without a library. */
  unknown_references: number | null;
  with_answer: number;
  /** Write tasks: those with `expect` assertions over the episode's final world state. */
  with_expect: number;
  with_tools: number;
  with_seed: number;
}

/** The library category of a reference's tool; undefined when the library has none for it. */
export type CategoryLookup = (reference: ToolReference) => string | undefined;

/** The counts of a loaded task file; categories only when a lookup is given. */
export function taskStats(file: TaskFile, categoryOf?: CategoryLookup): TaskStats {
  const sources = new Map<string, number>();
  const tools = Object.fromEntries(TOOL_COUNT_BUCKETS.map((b) => [b, 0])) as Record<ToolCountBucket, number>;
  const categories = new Map<string, number>();
  let unknown = 0;
  for (const task of file.tasks) {
    const source = typeof task.meta?.source === 'string' ? task.meta.source : file.format;
    sources.set(source, (sources.get(source) ?? 0) + 1);
    tools[bucket(task.references.length)]++;
    if (!categoryOf) continue;
    for (const reference of task.references) {
      const category = categoryOf(reference);
      if (category === undefined) unknown++;
      else categories.set(category, (categories.get(category) ?? 0) + 1);
    }
  }
  return {
    file: file.file,
    format: file.format,
    tasks: file.tasks.length,
    sources: byCount(sources),
    tools_per_task: tools,
    references: file.tasks.reduce((n, t) => n + t.references.length, 0),
    categories: categoryOf ? byCount(categories) : null,
    unknown_references: categoryOf ? unknown : null,
    with_answer: file.tasks.filter((t) => t.answer !== undefined).length,
    with_expect: file.tasks.filter((t) => t.expect !== undefined).length,
    with_tools: file.tasks.filter((t) => t.tools !== undefined).length,
    with_seed: file.tasks.filter((t) => t.seed !== undefined).length,
  };
}

/**
 * Each reference's category in the library at `store`, the references mapped as eval maps them (ids, ToolBench
 * names, function names), so that every format's references find their tools.
 */
export async function libraryCategories(store: LibraryStore, file: TaskFile): Promise<CategoryLookup> {
  const mapped = await mapReferences(file.tasks, storeLibrary(store));
  const categories = new Map<string, string>();
  for (const { mapping } of mapped) {
    for (const { reference, id } of mapping)
      if (id !== undefined) categories.set(JSON.stringify(reference), store.get(id)!.category);
  }
  return (reference) => categories.get(JSON.stringify(reference));
}

/** The library directory read in this process, as reference mapping reads a server's. */
export function storeLibrary(store: LibraryStore): LibraryClient {
  return {
    tool: async (id) => store.get(id),
    find: async (text) => {
      const out: ToolSummary[] = [];
      let cursor: string | undefined;
      do {
        const page = store.list({ q: text, limit: 1000, cursor });
        out.push(...page.tools);
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
      return out;
    },
    apis: async () => store.apis(),
  };
}

function bucket(references: number): ToolCountBucket {
  return references >= 4 ? '4+' : (String(references) as ToolCountBucket);
}

/** Most first, ties by name: a stable order for tables and charts. */
function byCount(counts: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}
