import type { Tool } from '../library/tool.js';
import { tokenize, words } from '../retrieval/tokenize.js';
import type { SearchHit } from '../wire/episodes.js';
import { actionsOf, contentTerms, overlap, toolAction } from '../agent/heuristic/choose.js';
import { linkPath } from '../agent/heuristic/links.js';
import { withoutAsked } from '../agent/heuristic/report.js';
import type { Slot } from '../agent/heuristic/slots.js';
import { fillFromText, schemaDefault } from '../agent/heuristic/values.js';

/** Which of a slot's search results to call: one candidate per result with a record. */
export const TOOL_FEATURES = [
  'name_overlap',
  'description_overlap',
  'parameter_overlap',
  'no_overlap',
  'rank_1',
  'rank_2',
  'rank_3',
  'rank_4_or_more',
  'relative_score',
  'action_agrees',
  'action_contradicts',
  'required_named',
  'required_fillable',
  'required_unfillable',
] as const;

export interface ToolCandidates {
  tools: Tool[];
  features: number[][];
}

/**
 * The slot's search hits as candidates, in rank order. Overlaps are the shares of the slot's content words found in
 * the tool's name, description and parameter names; `required_*` say whether the task can give the tool's required
 * parameters (named in the clause; filled from the text, a default, or an earlier slot's result).
 */
export function toolCandidates(
  slot: Slot,
  query: string,
  hits: readonly SearchHit[],
  records: ReadonlyMap<string, Tool>,
  earlier: readonly Tool[],
): ToolCandidates {
  const terms = contentTerms(slot.query);
  const wanted = actionsOf(words(slot.query));
  const clauseWords = new Set(tokenize(slot.text));
  const top = Math.max(0, ...hits.map((h) => h.score));
  const out: ToolCandidates = { tools: [], features: [] };
  hits.forEach((hit, rank) => {
    const tool = records.get(hit.id);
    if (!tool) return;
    const share = (text: string) => (terms.size === 0 ? 0 : overlap(terms, text) / terms.size);
    const name = share(tool.name);
    const description = share(tool.description);
    const parameters = share(Object.keys(tool.parameters.properties ?? {}).join(' '));
    const action = toolAction(tool, hit);
    const required = tool.parameters.required ?? [];
    const { missing } = fillFromText(tool, withoutAsked(slot.text), withoutAsked(query));
    const linked = (p: string) => earlier.some((e) => linkPath(tool, p, e) !== undefined);
    const unfilled = missing.filter((p) => schemaDefault(tool, p) === undefined && !linked(p));
    const named = required.filter((p) => tokenize(p).some((t) => clauseWords.has(t))).length;
    out.tools.push(tool);
    out.features.push([
      name,
      description,
      parameters,
      name + description + parameters === 0 ? 1 : 0,
      rank === 0 ? 1 : 0,
      rank === 1 ? 1 : 0,
      rank === 2 ? 1 : 0,
      rank >= 3 ? 1 : 0,
      top > 0 ? hit.score / top : 0,
      action !== undefined && wanted.has(action) ? 1 : 0,
      action !== undefined && wanted.size > 0 && !wanted.has(action) ? 1 : 0,
      required.length === 0 ? 1 : named / required.length,
      required.length === 0 ? 1 : 1 - unfilled.length / required.length,
      unfilled.length > 0 ? 1 : 0,
    ]);
  });
  return out;
}
