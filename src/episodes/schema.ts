import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemasDir } from '../paths.js';

let parsed: { $defs: Record<string, unknown> } | undefined;

/** schemas/trajectory.schema.json, read once: the published JSON Schema of trajectories, JSONL lines and the episode API's bodies. */
export function trajectorySchema(): { $defs: Record<string, unknown> } {
  parsed ??= JSON.parse(readFileSync(join(schemasDir, 'trajectory.schema.json'), 'utf8')) as {
    $defs: Record<string, unknown>;
  };
  return parsed;
}

/** The schema's definitions as OpenAPI component schemas (`#/$defs/X` → `#/components/schemas/X`), for the server's own document. */
export function episodeComponentSchemas(): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(trajectorySchema().$defs).replaceAll('"#/$defs/', '"#/components/schemas/'),
  ) as Record<string, unknown>;
}
