import { createRequire } from 'node:module';
import { schemaDefinition } from '../../wire/schemas.js';

/**
 * `GET /openenv/schema`: JSON Schemas of what a step takes and what reset, step and state answer (schemas/server's).
 */
export const OPENENV_SCHEMAS = {
  action: schemaDefinition('OpenEnvAction'),
  observation: schemaDefinition('OpenEnvObservation'),
  state: schemaDefinition('OpenEnvState'),
};

const VERSION = (createRequire(import.meta.url)('../../../../package.json') as { version: string }).version;

/** `GET /openenv/metadata`. */
export const OPENENV_METADATA = {
  name: 'ToolEnv',
  description:
    'Simulated tool APIs for agent RL: each episode is one task over a library of real tool interfaces, played in ' +
    'text turns of the ParaAct protocol (search tools, plan, call, answer); a step takes {"text": <model message>}, ' +
    "the final step's reward is the episode's R_traj. The same server speaks MCP at /mcp and its own episode API " +
    'at /v1/episodes (GET /openapi.json).',
  readme_content: null,
  version: VERSION,
  author: null,
  documentation_url: null,
};
