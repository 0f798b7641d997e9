/**
 * Refinement by LLM judges, as in the paper (Appendix A.3): each voter labels a candidate pair HARD, SOFT or NONE,
 * a tiebreaker settles ties, and an edge is admitted when the aggregated score reaches the threshold (0.7). A judge
 * is any `(prompt) → Promise<string>`; the model behind it is the caller's.
 */
import type { Tool } from '../library/tool.js';
import { ADMISSION_THRESHOLD, type Edge, type EdgeKind } from './edge.js';
import { deref, properties, requiredList } from './schema-walk.js';

export type Judge = (prompt: string) => Promise<string>;
export type Verdict = 'HARD' | 'SOFT' | 'NONE';

export interface Vote {
  verdict: Verdict;
  /** The judge's confidence in its verdict, in [0, 1] (1 when it gives none). */
  confidence: number;
}

export interface JudgeOptions {
  voters: Judge[];
  /** Asked only when the voters split evenly between HARD and SOFT. */
  tiebreaker?: Judge;
  threshold?: number;
  /** Judgments in flight at once. */
  concurrency?: number;
}

export interface JudgeReport {
  edges: Edge[];
  judged: number;
  admitted: number;
  /** Votes that failed or could not be read: counted as NONE. */
  abstentions: number;
}

/** Judges every candidate and keeps those the votes admit, with the judges' kind and score. */
export async function judgeCandidates(
  candidates: readonly Edge[],
  tools: (id: string) => Tool | undefined,
  options: JudgeOptions,
): Promise<JudgeReport> {
  if (options.voters.length === 0) throw new Error('judgeCandidates needs at least one voter');
  const threshold = options.threshold ?? ADMISSION_THRESHOLD;
  const edges: (Edge | undefined)[] = new Array(candidates.length);
  let abstentions = 0;
  const ask = async (judge: Judge, prompt: string): Promise<Vote | undefined> => {
    const vote = await judge(prompt).then(parseVote, () => undefined);
    if (!vote) abstentions++;
    return vote;
  };
  let next = 0;
  const worker = async () => {
    while (next < candidates.length) {
      const at = next++;
      const candidate = candidates[at]!;
      const a = tools(candidate.src);
      const b = tools(candidate.dst);
      if (!a || !b) continue;
      const prompt = judgePrompt(a, b, candidate.evidence);
      const votes = await Promise.all(options.voters.map((judge) => ask(judge, prompt)));
      const tally = tallyVotes(votes);
      let kind = tally.kind;
      if (kind === 'tie') {
        const vote = options.tiebreaker ? await ask(options.tiebreaker, prompt) : undefined;
        kind = vote?.verdict === 'HARD' ? 'hard' : 'soft';
      }
      if (kind === null || tally.score < threshold) continue;
      const said = votes.map((v) => v?.verdict ?? 'ABSTAIN').join(' ');
      edges[at] = { ...candidate, kind, score: tally.score, evidence: `${candidate.evidence} | judges: ${said}` };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  const admitted = edges.filter((e): e is Edge => e !== undefined);
  return { edges: admitted, judged: candidates.length, admitted: admitted.length, abstentions };
}

/**
 * score: the confidence-weighted share of voters that see an edge (HARD or SOFT); an abstention counts as NONE.
 * kind: the label with more edge votes; 'tie' when HARD and SOFT are even; null when no voter sees an edge.
 */
export function tallyVotes(votes: readonly (Vote | undefined)[]): { kind: EdgeKind | 'tie' | null; score: number } {
  let hard = 0;
  let soft = 0;
  let weight = 0;
  for (const vote of votes) {
    if (vote?.verdict === 'HARD') hard++;
    else if (vote?.verdict === 'SOFT') soft++;
    else continue;
    weight += vote.confidence;
  }
  const score = votes.length === 0 ? 0 : Math.round((weight / votes.length) * 1000) / 1000;
  if (hard + soft === 0) return { kind: null, score };
  return { kind: hard > soft ? 'hard' : soft > hard ? 'soft' : 'tie', score };
}

/**
 * Reads `{"relation": "HARD", "confidence": 0.9}`, or failing that the first HARD/SOFT/NONE word; undefined when
 * neither is there.
 */
export function parseVote(text: string): Vote | undefined {
  const json = /\{[^{}]*\}/.exec(text);
  if (json) {
    try {
      const value = JSON.parse(json[0]) as { relation?: unknown; confidence?: unknown };
      const verdict = typeof value.relation === 'string' ? value.relation.trim().toUpperCase() : '';
      if (verdict === 'HARD' || verdict === 'SOFT' || verdict === 'NONE') {
        const c = typeof value.confidence === 'number' && Number.isFinite(value.confidence) ? value.confidence : 1;
        return { verdict, confidence: Math.min(1, Math.max(0, c)) };
      }
    } catch {
      // Not JSON after all: fall back to the bare word.
    }
  }
  const word = /\b(HARD|SOFT|NONE)\b/.exec(text);
  return word ? { verdict: word[1] as Verdict, confidence: 1 } : undefined;
}

export function judgePrompt(a: Tool, b: Tool, evidence: string): string {
  return [
    'You label the dependency between two API tools for an agent that plans calls as a DAG.',
    'Question: does tool B need a value or a state that tool A produces?',
    'HARD: B cannot run correctly without A having run first: ' +
      "a required input of B comes from A's output, or B acts on a resource A creates.",
    'SOFT: running A first helps or orders B (an optional input, the same resource read after a change, a list ' +
      'before a lookup), but B can run without A.',
    'NONE: the two are independent.',
    '',
    `Tool A\n${describeTool(a)}`,
    '',
    `Tool B\n${describeTool(b)}`,
    '',
    `Schema rules suggested: ${evidence}`,
    '',
    'Answer with one JSON object and nothing else: {"relation": "HARD" | "SOFT" | "NONE", "confidence": <0..1>}',
  ].join('\n');
}

const MAX_DESCRIPTION = 300;
const MAX_FIELDS = 25;

/** A compact, deterministic card of one tool: what it is, what it takes, what it returns. */
export function describeTool(tool: Tool): string {
  const lines = [`id: ${tool.id}`, `name: ${tool.name}`];
  if (tool.origin.format === 'openapi')
    lines.push(`endpoint: ${tool.origin.method.toUpperCase()} ${tool.origin.path} (API ${tool.origin.api_id})`);
  const description = tool.description.replace(/\s+/g, ' ').trim();
  if (description)
    lines.push(
      'description: ' +
        `${description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION)}…` : description}`,
    );
  const required = new Set(tool.parameters.required ?? []);
  const params = Object.entries(tool.parameters.properties).map(
    ([name, schema]) => `${name}${required.has(name) ? '*' : ''}: ${typeName(schema, tool.parameters)}`,
  );
  lines.push(`parameters (* required): ${params.length > 0 ? params.slice(0, MAX_FIELDS).join(', ') : 'none'}`);
  lines.push(`returns: ${responseFields(tool)}`);
  return lines.join('\n');
}

function typeName(schema: unknown, root: unknown): string {
  const node = deref(schema, root);
  if (!node) return 'any';
  if (node.type === 'array') return `${typeName(node.items, root)}[]`;
  if (typeof node.type === 'string') return node.type;
  return properties(node).length > 0 ? 'object' : 'any';
}

function responseFields(tool: Tool): string {
  const root = deref(tool.response_schema, tool.response_schema);
  if (!root) return 'nothing described';
  const body = root.type === 'array' ? deref(root.items, tool.response_schema) : root;
  const fields = body ? properties(body) : [];
  if (fields.length === 0) return typeName(root, tool.response_schema);
  const required = new Set(body ? requiredList(body) : []);
  const listed = fields
    .slice(0, MAX_FIELDS)
    .map(([name, schema]) => `${name}${required.has(name) ? '*' : ''}: ${typeName(schema, tool.response_schema)}`);
  return `${root.type === 'array' ? 'array of ' : ''}{ ${listed.join(', ')} }`;
}
