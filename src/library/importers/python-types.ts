/**
 * Function specs written by Python tooling (Gorilla's BFCL among them) name types the way Python (or Java) does:
 * `dict`, `float`, `tuple`, `any`, `HashMap`, `long`. JSON Schema has `object`, `number`, `array` and no type at all
 * for "any": this maps them everywhere in the schema (type lists too, and a tuple's item list as `prefixItems`), so
 * such files import as they are.
 */
const PYTHON_TYPES: Record<string, string | undefined> = {
  dict: 'object',
  float: 'number',
  tuple: 'array',
  list: 'array',
  str: 'string',
  int: 'integer',
  bool: 'boolean',
  any: undefined,
  // BFCL's Java and JavaScript categories.
  String: 'string',
  char: 'string',
  long: 'integer',
  short: 'integer',
  byte: 'integer',
  Bigint: 'integer',
  double: 'number',
  HashMap: 'object',
  Hashtable: 'object',
  ArrayList: 'array',
  Array: 'array',
  Queue: 'array',
  Stack: 'array',
  Any: undefined,
};

export function jsonSchemaTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonSchemaTypes);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === 'type' && typeof member === 'string' && Object.hasOwn(PYTHON_TYPES, member)) {
      const type = PYTHON_TYPES[member];
      if (type !== undefined) out.type = type;
      continue;
    }
    if (key === 'type' && Array.isArray(member)) {
      out.type = [
        ...new Set(
          member
            .map((t) => (typeof t === 'string' && Object.hasOwn(PYTHON_TYPES, t) ? PYTHON_TYPES[t] : t))
            .filter((t) => t !== undefined),
        ),
      ];
      continue;
    }
    // A tuple's items written as a list is JSON Schema 2020-12's prefixItems.
    if (key === 'items' && Array.isArray(member)) {
      out.prefixItems = member.map(jsonSchemaTypes);
      continue;
    }
    // Property names are data, not schemas: a parameter called "type" keeps its schema and its name.
    out[key] =
      key === 'properties' && member !== null && typeof member === 'object' && !Array.isArray(member)
        ? Object.fromEntries(Object.entries(member).map(([name, schema]) => [name, jsonSchemaTypes(schema)]))
        : jsonSchemaTypes(member);
  }
  return out;
}
