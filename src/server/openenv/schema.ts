import { createRequire } from 'node:module';
import type { Finish } from '../../wire/episodes.js';

/** `GET /openenv/schema`: JSON Schemas of what a step takes and what reset, step and state answer. */
export const OPENENV_SCHEMAS = {
  action: {
    title: 'ToolEnvAction',
    description: "One text turn: the raw model message, read by the episode's protocol (ParaAct by default).",
    type: 'object',
    properties: { text: { type: 'string', description: 'The assistant message, as the model wrote it.' } },
    required: ['text'],
    additionalProperties: false,
  },
  observation: {
    title: 'ToolEnvObservation',
    description:
      'A reset answers turn 0 with the first messages; a step answers the next user message, and once done the rewards.',
    type: 'object',
    properties: {
      episode_id: {
        type: 'string',
        description: 'The ToolEnv episode (`/v1/episodes/{id}` serves its trajectory and rewards).',
      },
      turn: { type: 'integer', minimum: 0 },
      content: {
        type: 'string',
        description:
          "The next user message (at reset: the task's query); for a `chat` episode, its tool messages as a JSON array.",
      },
      messages: {
        type: 'array',
        description: "At reset: the system prompt and the task's query, what the model reads first.",
        items: {
          type: 'object',
          required: ['role', 'content'],
          properties: { role: { enum: ['system', 'user'] }, content: { type: 'string' } },
        },
      },
      stop: {
        type: 'array',
        items: { type: 'string' },
        description: 'At reset: where a model message ends (the openers of what the environment writes).',
      },
      done: { type: 'boolean' },
      finish: {
        enum: ['answer', 'turn_cap', 'episode_done'] satisfies Finish[],
        description: 'Why the episode ended.',
      },
      answer: { type: 'string', description: 'The accepted final answer.' },
      rejected: { type: 'array', items: { type: 'string' }, description: 'Why the message was not run.' },
      rewards: {
        type: 'object',
        description: "Once done: the episode's rewards; null ones (and `flagged`) when R_ans could not be scored.",
        required: ['r_step', 'r_phase', 'r_traj', 'r_ans'],
        properties: {
          r_step: {
            type: ['number', 'null'],
            description: 'Null for the chat protocol, whose turns carry no plan to score.',
          },
          r_phase: { type: ['number', 'null'] },
          r_traj: { type: ['number', 'null'] },
          r_ans: { type: ['number', 'null'] },
          flagged: { type: 'string' },
        },
        additionalProperties: false,
      },
      reward_error: { type: 'string', description: 'Once done, when the rewards could not be computed.' },
    },
    required: ['episode_id', 'turn', 'content', 'done'],
    additionalProperties: false,
  },
  state: {
    title: 'ToolEnvState',
    type: 'object',
    properties: {
      episode_id: { type: ['string', 'null'], description: 'Null in a WebSocket session that has not reset yet.' },
      step_count: { type: 'integer', minimum: 0, description: 'Text turns taken.' },
      done: { type: 'boolean' },
      task: {
        type: 'object',
        description: "The episode's task.",
        required: ['id', 'query'],
        properties: {
          id: { type: 'string' },
          query: { type: 'string' },
          reference_tools: { type: 'array', items: { type: 'string' } },
          answer: { type: ['string', 'array'], items: { type: 'string' } },
        },
      },
    },
    required: ['episode_id', 'step_count', 'done'],
    additionalProperties: false,
  },
} as const;

const VERSION = (createRequire(import.meta.url)('../../../../package.json') as { version: string }).version;

/** `GET /openenv/metadata`. */
export const OPENENV_METADATA = {
  name: 'ToolEnv',
  description:
    'Simulated tool APIs for agent RL: each episode is one task over a library of real tool interfaces, played in text turns of the ' +
    'ParaAct protocol (search tools, plan, call, answer); a step takes {"text": <model message>}, the final step\'s reward is the ' +
    "episode's R_traj. The same server speaks MCP at /mcp and its own episode API at /v1/episodes (GET /openapi.json).",
  readme_content: null,
  version: VERSION,
  author: null,
  documentation_url: null,
};
