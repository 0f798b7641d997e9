import type { Tool } from '../library/tool.js';
import { responseFields } from '../protocol/tool-view.js';
import { tokenize, words } from '../retrieval/tokenize.js';
import { fieldPath, linkPath } from '../agent/heuristic/links.js';
import { candidatesIn, compatibility, enumMatches, near, schemaDefault } from '../agent/heuristic/values.js';
import type { Candidate, Kind, Param } from '../agent/heuristic/values.js';

/** Which value fills a required parameter: a value the task states, an earlier result's field, a default, or none. */
export const ARGUMENT_FEATURES = [
  'literal',
  'quoted',
  'email',
  'url',
  'date',
  'id',
  'number',
  'code',
  'proper',
  'boolean',
  'enum_named',
  'type_fits',
  'fit_score',
  'name_before',
  'in_clause',
  'reference',
  'reference_name_equal',
  'reference_name_overlap',
  'reference_dataflow',
  'reference_param_named',
  'reference_depth',
  'default',
  'omit',
] as const;

/** Response fields of one producer offered as references. */
const MAX_FIELDS = 24;
/** compatibility()'s best score for a literal (a value of the parameter's own format). */
const TOP_FIT = 8;

export interface ArgumentChoice {
  /** The value sent (a `{$ref}` for a reference); undefined leaves the parameter out. */
  value: unknown;
  /** The literal's text, so that one value fills one parameter only. */
  literal?: string;
  /** The producer's call id, for a reference. */
  producer?: string;
}

export interface ArgumentCandidates {
  choices: ArgumentChoice[];
  features: number[][];
}

/** The text the values come from, and the clause of the slot inside it. */
export interface ArgumentText {
  text: string;
  clause: { start: number; end: number };
}

type Literal = Omit<Candidate, 'kind'> & { kind: Kind | 'boolean' };
type Feature = (typeof ARGUMENT_FEATURES)[number];

/** An earlier slot's call: its id (what a reference names) and its tool. */
export interface Producer {
  id: string;
  tool: Tool;
}

/**
 * Every value one required parameter could take. Literals the task states (those another parameter of the call took
 * left out), with whether their shape fits the parameter's type and format and whether the text names the
 * parameter right before them; the parameter's enum values the text names; each scalar field of an earlier call's
 * response, with how its name matches the parameter's; the schema's default; and leaving it out.
 */
export function argumentCandidates(
  param: Param,
  tool: Tool,
  source: ArgumentText,
  used: ReadonlySet<string>,
  producers: readonly Producer[],
): ArgumentCandidates {
  const out: ArgumentCandidates = { choices: [], features: [] };
  const add = (choice: ArgumentChoice, set: Partial<Record<Feature, number>>) => {
    out.choices.push(choice);
    out.features.push(ARGUMENT_FEATURES.map((name) => set[name] ?? 0));
  };
  for (const literal of literals(source.text)) {
    if (used.has(literal.text)) continue;
    const fit = fitOf(param, literal);
    const inClause = literal.start >= source.clause.start && literal.end <= source.clause.end;
    // near() reads a number's next word too; a boolean is read as a word.
    const named = near(param, source.text, { ...literal, kind: literal.kind === 'boolean' ? 'code' : literal.kind });
    add(
      { value: fit?.value ?? literal.text, literal: literal.text },
      {
        literal: 1,
        [literal.kind]: 1,
        type_fits: fit ? 1 : 0,
        fit_score: fit ? fit.score / TOP_FIT : 0,
        name_before: named ? 1 : 0,
        in_clause: inClause ? 1 : 0,
      },
    );
  }
  for (const value of enumMatches(param, source.text)) add({ value }, { enum_named: 1, type_fits: 1, fit_score: 1 });
  const clause = new Set(tokenize(source.text.slice(source.clause.start, source.clause.end)));
  const paramNamed = tokenize(param.name).some((t) => clause.has(t)) ? 1 : 0;
  const paramWords = words(param.name);
  for (const producer of producers) {
    const linked = linkPath(tool, param.name, producer.tool);
    const fields = responseFields(producer.tool.response_schema, MAX_FIELDS).map((f) => `body${fieldPath(f)}`);
    for (const path of new Set([...(linked ? [linked] : []), ...fields])) {
      const leaf =
        path
          .split(/[.[\]"]/)
          .filter((s) => s !== '' && !/^\d+$/.test(s))
          .pop() ?? '';
      const leafWords = new Set(words(leaf));
      const shared = paramWords.filter((w) => leafWords.has(w)).length;
      add(
        { value: { $ref: `${producer.id}.${path}` }, producer: producer.id },
        {
          reference: 1,
          reference_name_equal: normalize(leaf) === normalize(param.name) ? 1 : 0,
          reference_name_overlap: paramWords.length === 0 ? 0 : shared / paramWords.length,
          reference_dataflow: path === linked ? 1 : 0,
          reference_param_named: paramNamed,
          reference_depth: Math.min(1, ((path.match(/[.[]/g)?.length ?? 1) - 1) / 4),
        },
      );
    }
  }
  const fallback = schemaDefault(tool, param.name);
  if (fallback) add({ value: fallback.value }, { default: 1, type_fits: 1 });
  add({ value: undefined }, { omit: 1 });
  return out;
}

/** Whether a literal's shape fits the parameter (the heuristic's compatibility), and the value it is sent as. */
function fitOf(param: Param, literal: Literal): { score: number; value: unknown } | undefined {
  if (literal.kind !== 'boolean') return compatibility(param, literal as Candidate);
  return param.type === 'boolean' ? { score: TOP_FIT, value: literal.text === 'true' } : undefined;
}

/** The text's literal values (the heuristic's patterns) and the words true and false. */
function literals(text: string): Literal[] {
  const found: Literal[] = candidatesIn(text);
  for (const m of text.matchAll(/\b(true|false)\b/g)) {
    found.push({ kind: 'boolean', text: m[1]!, start: m.index, end: m.index + m[0].length });
  }
  return found.sort((a, b) => a.start - b.start);
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}
