/**
 * Where code keeps a shape of its own beside the schema's (a room below the wire cannot import it, or a constant
 * lists the values), the two must be the same type: a disagreement fails the build of this file, before any test.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Problem } from '../../src/simulator/problem.js';
import type { EpisodeProtocol, SystemPromptStyle, ToolParser } from '../../src/wire/episodes.js';
import { EPISODE_PROTOCOLS, SYSTEM_PROMPTS, TOOL_PARSERS } from '../../src/wire/episodes.js';
import type * as Schema from '../../src/wire/schema-types.js';
import type { Edge } from '../../src/graph/edge.js';
import type { ToolSummary } from '../../src/library/store.js';
import type { Tool } from '../../src/library/tool.js';
import { OPENENV_SCHEMAS } from '../../src/server/openenv/schema.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : 'the schema allows more') : 'the code allows more';
/** What the code holds and serves as a shape is one the schema accepts (the code may be narrower). */
type Fits<A, B> = [A] extends [B] ? true : 'the code makes what the schema refuses';

test('the code’s own copies of wire shapes are the schemas’ shapes', () => {
  const agreements: true[] = [
    true satisfies Same<Problem, Schema.Problem>,
    true satisfies Same<EpisodeProtocol, Schema.Protocol>,
    true satisfies Same<SystemPromptStyle, NonNullable<Schema.EpisodeSummary['system_prompt']>>,
    true satisfies Same<ToolParser, (typeof TOOL_PARSERS)[number]>,
  ];
  assert.equal(agreements.length, 4);
});

test('the constants list every value the schemas allow', () => {
  const all = <T extends string>(values: Record<T, true>) => Object.keys(values).sort();
  assert.deepEqual(
    [...EPISODE_PROTOCOLS].sort(),
    all<Schema.Protocol>({ paraact: true, react: true, parallel: true, chat: true }),
  );
  assert.deepEqual([...SYSTEM_PROMPTS].sort(), all<SystemPromptStyle>({ full: true, brief: true }));
  assert.deepEqual([...TOOL_PARSERS].sort(), all<ToolParser>({ hermes: true, llama3: true, mistral: true }));
});

test('what the server holds and serves fits the shapes its document declares', () => {
  const fits: true[] = [
    true satisfies Fits<Tool, Schema.Tool>,
    true satisfies Fits<Edge, Schema.Edge>,
    true satisfies Fits<ToolSummary, Schema.ToolSummary>,
  ];
  assert.equal(fits.length, 3);
});

test("OpenEnv's observation names the episode finishes the trajectory schema does", () => {
  const finishes = (OPENENV_SCHEMAS.observation as { properties: { finish: { enum: string[] } } }).properties.finish;
  assert.deepEqual(
    [...finishes.enum].sort(),
    Object.keys({ answer: true, turn_cap: true, episode_done: true } satisfies Record<Schema.Finish, true>).sort(),
  );
});
