/**
 * src/wire/schema-types.d.ts is what scripts/wire-types.mjs derives from schemas/: a schema changed without the
 * types (or the file edited by hand) fails here. The types the code uses are re-exported from it, so the compiler
 * holds the code to the published schemas.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';

test('the derived wire types are what the schemas give', () => {
  const check = spawnSync(process.execPath, [join(packageRoot, 'scripts', 'wire-types.mjs'), '--check'], {
    encoding: 'utf8',
  });
  assert.equal(check.status, 0, check.stderr);
});
