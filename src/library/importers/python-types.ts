/**
 * Function specs written by Python tooling (Gorilla's BFCL among them) name types the way Python does: `dict`,
 * `float`, `tuple`, `any`. JSON Schema has `object`, `number`, `array` and no type at all for "any": this maps them,
 * everywhere in the schema, so such files import as they are.
 */
const PYTHON_TYPES: Record<string, string | undefined> = { dict: 'object', float: 'number', tuple: 'array', list: 'array', str: 'string', int: 'integer', bool: 'boolean', any: undefined };

export function jsonSchemaTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonSchemaTypes);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === 'type' && typeof member === 'string' && member in PYTHON_TYPES) {
      const type = PYTHON_TYPES[member];
      if (type !== undefined) out.type = type;
      continue;
    }
    // Property names are data, not schemas: a parameter called "type" keeps its schema and its name.
    out[key] = key === 'properties' && member !== null && typeof member === 'object' && !Array.isArray(member) ? Object.fromEntries(Object.entries(member).map(([name, schema]) => [name, jsonSchemaTypes(schema)])) : jsonSchemaTypes(member);
  }
  return out;
}
