#!/usr/bin/env node
/**
 * Writes src/wire/schema-types.d.ts, the TypeScript types of every shape in schemas/ (trajectory, rewards, the server's
 * own and the tool record), with json-schema-to-typescript: the schemas are the contract, the types follow them.
 * `node scripts/wire-types.mjs` rewrites the file; `--check` exits 1 when it is not what the schemas give (npm test
 * runs that through test/wire/schema-types.test.ts); `--combined` prints the one document both files make, for
 * Python's generator. A declaration file, so the studio's own build imports it too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['trajectory.schema.json', 'rewards.schema.json', 'server.schema.json', 'tool.schema.json'];
const TOOL_ID = 'https://toolenv.dev/schemas/tool.schema.json';
export const TYPES_FILE = join(ROOT, 'src', 'wire', 'schema-types.d.ts');

/** Keywords beside a `$ref` that say nothing of the type: the generator would copy the target under a new name. */
const REF_NOTES = new Set(['description', 'unevaluatedProperties', 'default', 'deprecated']);

/**
 * A `$ref` without its notes, everywhere: what any generator needs to name the target instead of copying it. Rules
 * between members (`if`/`then`: `tool_parser` only with `protocol: "chat"`) go too: they are the validator's, and no
 * generated type can say them.
 */
function bareRefs(node) {
  if (Array.isArray(node)) return node.map(bareRefs);
  if (node === null || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string' && Object.keys(node).every((key) => key === '$ref' || REF_NOTES.has(key))) {
    return { $ref: node.$ref };
  }
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== 'allOf' || !node.allOf.every((rule) => 'if' in rule))
      .map(([key, value]) => [key, bareRefs(value)]),
  );
}

/**
 * What a type can say of a schema (its refs already bare): `{}` as `unknown`, an open object as one, and no
 * `oneOf`/`anyOf` whose branches only require members (a rule between members, such as "text or message", is the
 * validator's; the type keeps both optional).
 */

function typeable(node) {
  if (Array.isArray(node)) return node.map(typeable);
  if (node === null || typeof node !== 'object') return node;
  // Any JSON value (a response body): `unknown`, not an object with any members.
  if (Object.keys(node).every((key) => REF_NOTES.has(key))) return { ...node, tsType: 'unknown' };
  // An object whose members the schema leaves open (a call's arguments): any members, of any value.
  const open = !('properties' in node || 'additionalProperties' in node || 'patternProperties' in node);
  if (node.type === 'object' && open && !('allOf' in node || 'oneOf' in node || 'anyOf' in node || '$ref' in node)) {
    return { ...node, additionalProperties: { tsType: 'unknown' } };
  }
  // `allOf: [{ $ref: X }, { required: [...] }]`: X with those members required, which the generator cannot say.
  if (Array.isArray(node.allOf)) {
    const target = node.allOf
      .find((branch) => typeof branch.$ref === 'string')
      ?.$ref.split('/')
      .pop();
    const onlyRequired = (branch) => Object.keys(branch).every((k) => k === 'required');
    if (target) {
      node = {
        ...node,
        allOf: node.allOf.map((branch) =>
          onlyRequired(branch)
            ? { tsType: `Required<Pick<${target}, ${branch.required.map((k) => `'${k}'`).join(' | ')}>>` }
            : branch,
        ),
      };
    }
  }
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    const onlyRequires = (branch) => Object.keys(branch).every((k) => k === 'required');
    if ((key === 'oneOf' || key === 'anyOf') && value.every(onlyRequires)) continue;
    out[key] = typeable(value);
  }
  return out;
}

/**
 * Both files' definitions as one document, the cross-file refs made local (no definition name is in both), so that
 * no generator reaches for the schemas' URLs. Refs lose their notes (`bareRefs`); `typed` also applies `typeable`
 * (TypeScript's generator).
 */
export function combined(typed = true) {
  const definitions = {};
  for (const name of SOURCES) {
    const text = readFileSync(join(ROOT, 'schemas', name), 'utf8')
      .replaceAll(`"${TOOL_ID}"`, '"#/definitions/Tool"')
      .replace(/"(?:https:\/\/toolenv\.dev\/schemas\/[a-z-]+\.schema\.json)?#\/\$defs\//g, '"#/definitions/');
    const { $defs, $schema: _s, $id: _i, title: _t, ...root } = JSON.parse(text);
    // The tool record is its file's root; every other file only gathers definitions.
    const defs = name === 'tool.schema.json' ? { Tool: root, ...$defs } : $defs;
    // A definition's title would name its type: the definition's name does.
    for (const def of Object.values(defs)) delete def.title;
    Object.assign(definitions, typed ? typeable(bareRefs(defs)) : bareRefs(defs));
  }
  return { title: 'WireShapes', type: 'object', additionalProperties: false, definitions };
}

export async function wireTypes() {
  const text = await compile(combined(), 'WireShapes', {
    bannerComment:
      '/* The wire shapes as schemas/*.schema.json define them (trajectory, rewards, server, tool):\n' +
      ' * generated by scripts/wire-types.mjs, never edited by hand. */',
    additionalProperties: false,
    unreachableDefinitions: true,
    ignoreMinAndMaxItems: true,
    style: { printWidth: 120, singleQuote: true, trailingComma: 'all' },
  });
  // The root only gathers the definitions: it is no shape of its own, and the notes naming it say nothing.
  const note =
    String.raw`This (?:interface|type) was referenced by \`WireShapes\`'s JSON-Schema` +
    String.raw`\n *\* via the \`definition\` "\w+"\.`;
  return text
    .replace(/export interface WireShapes \{\}\n/, '')
    .replace(new RegExp(String.raw`/\*\*\n \* ${note}\n \*/\n`, 'g'), '')
    .replace(new RegExp(String.raw`\n *\*\n *\* ${note}`, 'g'), '');
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--combined')) {
  // The document Python's generator reads (scripts/wire-types-python).
  process.stdout.write(`${JSON.stringify(combined(false), null, 2)}\n`);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await wireTypes();
  if (process.argv.includes('--check')) {
    if (readFileSync(TYPES_FILE, 'utf8') !== text) {
      process.stderr.write(
        'src/wire/schema-types.d.ts is not what the schemas give: run node scripts/wire-types.mjs\n',
      );
      process.exit(1);
    }
  } else writeFileSync(TYPES_FILE, text);
}
