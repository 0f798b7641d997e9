import type { Tool } from '../../library/tool.js';
import { tokenize, words } from '../../retrieval/tokenize.js';
import type { RunState, SearchOutcome } from '../../protocol/state.js';
import type { Slot } from './slots.js';

/**
 * Tool choice for a capability slot: the tools its searches returned, ordered by lexical overlap between the slot and
 * the tool (name, description, parameter names), search rank breaking ties. A tool sharing no content word with the
 * slot is not a candidate, nor one whose action contradicts the slot's (a slot asking to find something never picks
 * a tool that deletes it). Tools a later, wider search added come after the first search's, so the order of the
 * first candidates never changes as the run goes on (the planner numbers its attempts by it).
 */
export function rankCandidates(slot: Slot, searches: readonly SearchOutcome[], state: RunState): string[] {
  const terms = contentTerms(slot.query);
  const wanted = actionsOf(words(slot.query));
  const ranked: string[] = [];
  for (const search of searches) {
    const fresh = search.results
      .map((hit, rank) => ({
        id: hit.id,
        rank,
        overlap: overlap(terms, toolText(state.tools.get(hit.id), hit)),
        action: toolAction(state.tools.get(hit.id), hit),
      }))
      .filter(
        (c) =>
          c.overlap > 0 &&
          !ranked.includes(c.id) &&
          (wanted.size === 0 || c.action === undefined || wanted.has(c.action)),
      );
    fresh.sort((a, b) => b.overlap - a.overlap || a.rank - b.rank);
    ranked.push(...new Set(fresh.map((c) => c.id)));
  }
  return ranked;
}

function toolText(tool: Tool | undefined, hit: { id: string; name: string; description: string }): string {
  if (!tool) return `${hit.name} ${hit.description}`;
  return `${tool.name} ${tool.description} ${Object.keys(tool.parameters.properties ?? {}).join(' ')}`;
}

/** The slot's terms without its action verbs: `get` or `find` says nothing about which tool fits. */
export function contentTerms(text: string): Set<string> {
  const all = tokenize(text);
  const verbs = new Set(tokenize(Object.keys(ACTIONS).join(' ')));
  const content = all.filter((t) => !verbs.has(t));
  return new Set(content.length > 0 ? content : all);
}

export function overlap(terms: ReadonlySet<string>, text: string): number {
  const toolTerms = new Set(tokenize(text));
  let n = 0;
  for (const term of terms) if (toolTerms.has(term)) n++;
  return n;
}

export type Action = 'read' | 'create' | 'update' | 'delete' | 'send';

/** Verbs by the kind of action they ask for: a tool's first verb against the slot's. */
const ACTIONS: Record<string, Action> = Object.fromEntries(
  (
    [
      ['read', 'get find fetch retrieve read lookup look show list search query check view see describe'],
      ['create', 'add create new register insert make post upload book'],
      ['update', 'update edit modify patch set change rename replace'],
      ['delete', 'delete remove destroy cancel drop purge erase'],
      ['send', 'send notify email message text sms mail'],
    ] as const
  ).flatMap(([action, verbs]) => verbs.split(' ').map((verb) => [verb, action])),
);

export function actionsOf(ws: readonly string[]): Set<Action> {
  return new Set(ws.map((w) => ACTIONS[w]).filter((a): a is Action => a !== undefined));
}

/** The action a tool's name opens with (`Delete a pet`, `getPetById`, `send_email`), if it opens with a verb. */
export function toolAction(tool: Tool | undefined, hit: { id: string; name: string }): Action | undefined {
  const first = words(tool?.name ?? hit.name)[0] ?? words(hit.id)[0];
  return first === undefined ? undefined : ACTIONS[first];
}
