import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGraph } from '../../src/graph/build.js';
import type { Edge } from '../../src/graph/edge.js';
import {
  describeTool,
  judgeCandidates,
  judgePrompt,
  parseVote,
  tallyVotes,
  type Judge,
} from '../../src/graph/judge.js';
import { openGraph } from '../../src/graph/store.js';
import { petstoreTools } from '../fixtures/tools.js';
import { id, writeGraphFixtureLibrary } from './fixtures.js';

const [listPets, addPet, getPetById, deletePet, weather] = petstoreTools;
const tools = new Map(petstoreTools.map((t) => [t.id, t]));
const candidate = (src: string, dst: string, kind: Edge['kind'] = 'hard', score = 0.9): Edge => ({
  src,
  dst,
  kind,
  rule: 'dataflow',
  score,
  evidence: 'response id → path petId (pet.id)',
});
/** A deterministic judge: answers by the pair the prompt is about. */
const judgeBy =
  (answers: Record<string, string>): Judge =>
  async (prompt) => {
    for (const [pair, answer] of Object.entries(answers)) {
      const [a, b] = pair.split('>');
      if (prompt.includes(`Tool A\nid: ${a}\n`) && prompt.includes(`Tool B\nid: ${b}\n`)) return answer;
    }
    return '{"relation": "NONE", "confidence": 0.9}';
  };

test('votes are read from JSON, from a bare word, or not at all', () => {
  assert.deepEqual(parseVote('{"relation": "hard", "confidence": 0.8}'), { verdict: 'HARD', confidence: 0.8 });
  assert.deepEqual(parseVote('I think so.\n```json\n{"relation":"SOFT"}\n```'), { verdict: 'SOFT', confidence: 1 });
  assert.deepEqual(parseVote('{"relation": "NONE", "confidence": 7}'), { verdict: 'NONE', confidence: 1 });
  assert.deepEqual(parseVote('Relation: HARD'), { verdict: 'HARD', confidence: 1 });
  assert.equal(parseVote('no idea'), undefined);
  assert.equal(parseVote('{"relation": "MAYBE"}'), undefined);
});

test('the tally scores the confidence-weighted share of voters that see an edge', () => {
  const v = (verdict: 'HARD' | 'SOFT' | 'NONE', confidence = 1) => ({ verdict, confidence });
  assert.deepEqual(tallyVotes([v('HARD'), v('HARD'), v('SOFT')]), { kind: 'hard', score: 1 });
  assert.deepEqual(tallyVotes([v('HARD'), v('SOFT'), v('NONE')]), { kind: 'tie', score: 0.667 });
  assert.deepEqual(tallyVotes([v('SOFT', 0.9), v('SOFT', 0.6), undefined]), { kind: 'soft', score: 0.5 });
  assert.deepEqual(tallyVotes([v('NONE'), undefined]), { kind: null, score: 0 });
});

test('the prompt shows both tools, their inputs and outputs, and the rule evidence', () => {
  const prompt = judgePrompt(addPet!, getPetById!, 'response id → path petId (pet.id)');
  assert.match(
    prompt,
    /Tool A\nid: petstore_test__addPet\nname: Add a pet\nendpoint: POST \/pets \(API petstore.test\)/,
  );
  assert.match(
    prompt,
    /Tool B\nid: petstore_test__getPetById[\s\S]*parameters \(\* required\): petId\*: integer, X-Request-Id: string/,
  );
  assert.match(prompt, /returns: \{ id\*: integer, name\*: string, status: string, tags: object\[\] \}/);
  assert.match(prompt, /Schema rules suggested: response id → path petId \(pet\.id\)/);
  assert.match(describeTool(listPets!), /returns: array of \{ id\*: integer/);
  assert.match(describeTool(weather!), /returns: nothing described/);
});

test('judges admit at 0.7, relabel, drop NONE, and the tiebreaker settles an even split', async () => {
  const pairs = [
    candidate(addPet!.id, getPetById!.id),
    candidate(listPets!.id, deletePet!.id),
    candidate(addPet!.id, deletePet!.id, 'soft', 0.5),
    candidate(weather!.id, addPet!.id),
  ];
  const answers = {
    [`${addPet!.id}>${getPetById!.id}`]: '{"relation":"HARD","confidence":0.95}',
    [`${listPets!.id}>${deletePet!.id}`]: '{"relation":"SOFT","confidence":0.8}',
    [`${addPet!.id}>${deletePet!.id}`]: '{"relation":"HARD"}',
  };
  const soft = judgeBy({ ...answers, [`${addPet!.id}>${deletePet!.id}`]: '{"relation":"SOFT"}' });
  let tiebreaks = 0;
  const tiebreaker: Judge = async () => {
    tiebreaks++;
    return 'HARD';
  };
  const report = await judgeCandidates(pairs, (t) => tools.get(t), {
    voters: [judgeBy(answers), judgeBy(answers), soft, soft],
    tiebreaker,
    concurrency: 2,
  });
  const byPair = new Map(report.edges.map((e) => [`${e.src}>${e.dst}`, e]));
  assert.equal(report.judged, 4);
  assert.equal(report.admitted, 3);
  assert.equal(byPair.get(`${addPet!.id}>${getPetById!.id}`)?.score, 0.95);
  assert.equal(byPair.get(`${listPets!.id}>${deletePet!.id}`)?.kind, 'soft');
  // 2 HARD + 2 SOFT: an even split the tiebreaker decides; the low rule prior does not matter once judges vote.
  assert.equal(byPair.get(`${addPet!.id}>${deletePet!.id}`)?.kind, 'hard');
  assert.equal(tiebreaks, 1);
  assert.match(byPair.get(`${addPet!.id}>${deletePet!.id}`)!.evidence, /judges: HARD HARD SOFT SOFT$/);
  assert.equal(byPair.has(`${weather!.id}>${addPet!.id}`), false);
});

test('a failing or unreadable judge abstains, which counts against admission', async () => {
  const pair = candidate(addPet!.id, getPetById!.id);
  const hard: Judge = async () => '{"relation":"HARD"}';
  const broken: Judge = async () => {
    throw new Error('model unavailable');
  };
  const mumbling: Judge = async () => 'hmm';
  const two = await judgeCandidates([pair], (t) => tools.get(t), { voters: [hard, hard, broken] });
  assert.equal(two.admitted, 0);
  assert.equal(two.abstentions, 1);
  const lenient = await judgeCandidates([pair], (t) => tools.get(t), {
    voters: [hard, hard, mumbling],
    threshold: 0.6,
  });
  assert.equal(lenient.admitted, 1);
  await assert.rejects(
    judgeCandidates([pair], (t) => tools.get(t), { voters: [] }),
    /at least one voter/,
  );
});

test('a build with judges stores exactly the edges they admit', async () => {
  const library = await writeGraphFixtureLibrary();
  const listP = id('petstore.test:pets', 'listPets');
  const getP = id('petstore.test:pets', 'getPetById');
  const prompts: string[] = [];
  const judge: Judge = async (prompt) => {
    prompts.push(prompt);
    return prompt.includes(`Tool A\nid: ${listP}\n`) && prompt.includes(`Tool B\nid: ${getP}\n`)
      ? '{"relation":"SOFT"}'
      : 'NONE';
  };
  const report = await buildGraph(library, { judge: { voters: [judge, judge, judge] } });
  assert.equal(report.judged, report.candidates);
  assert.equal(prompts.length, 3 * report.candidates);
  const graph = openGraph(library);
  assert.equal(graph.stats().edges, 1);
  const [edge] = graph.subgraph([listP, getP]);
  assert.equal(edge?.kind, 'soft');
  assert.equal(edge?.score, 1);
  graph.close();
});
